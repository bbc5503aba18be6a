/**
 * PaneAccess — the steps every one-pane operation of the tmux Terminal shares: whether a resolved
 * pane is the one TermPilot itself runs in (never typed into), the pane's flag row over its own
 * client (`session_not_found` when tmux has no such pane), and readiness from that row plus the
 * pane's mark stream, and the failure of a send whose bytes may have left.
 */
import { resolve as resolvePath } from "node:path"
import { Effect } from "effect"
import { type FlagRow, flagsOf } from "../../domain/tmux/PaneFormat.js"
import { fail, sessionNotFound, type TermPilotError } from "../../services/Errors.js"
import type { Readiness } from "../../services/Terminal.js"
import { entryReadiness } from "./PaneTable.js"
import { noteTokens } from "./TmuxInventory.js"
import type { ResolvedPane } from "./TmuxRegistry.js"
import type { TmuxServer } from "./TmuxServer.js"

export interface OwnPane {
  readonly socket: string
  readonly pane: string
}

/** `not_permitted` when `resolved` is TermPilot's own pane (`own`, as configured); `what` was not done. */
export const refuseOwnPane = (
  own: OwnPane | null,
  resolved: ResolvedPane,
  sessionId: string,
  what: string
): Effect.Effect<void, TermPilotError> =>
  own !== null && resolvePath(own.socket) === resolved.id.socket && own.pane === `%${resolved.pane}`
    ? Effect.fail(
        fail(
          "not_permitted",
          `Session '${sessionId}' is the tmux pane TermPilot itself runs in; it never ${what} there. Nothing was sent.`
        )
      )
    : Effect.void

/** The pane's flag row over its own client; `session_not_found` when tmux has no such pane. */
export const flagsOfPane = ({ server, pane }: ResolvedPane, sessionId: string) =>
  Effect.flatMap(server.flags(pane), (row) =>
    row === null ? Effect.fail(sessionNotFound(sessionId)) : Effect.succeed(row)
  )

/** Readiness of `pane` from its flag row and its mark stream (noting its announced tokens). */
export const readinessOf = (server: TmuxServer, pane: number, row: FlagRow): Readiness => {
  const entry = server.panes.entry(pane)
  noteTokens(server, pane, row)
  return entryReadiness(entry, flagsOf(row))
}

/** A transport failure once the write may have left: `tmux_unavailable`, outcome unknown. */
export const mayHaveReached =
  (sessionId: string, what: string) =>
  (e: TermPilotError): TermPilotError =>
    fail("tmux_unavailable", `${e.message} The ${what} may or may not have reached session '${sessionId}'.`, {
      sendOutcomeUnknown: true
    })
