/**
 * Readiness — the steps every one-pane operation of the tmux Terminal shares: the pane's flag row over its own
 * client (`session_not_found` when tmux has no such pane), and readiness from that row plus the
 * pane's mark stream, the failure of a send whose bytes may have left, and tmux refusing some of
 * the lines that type.
 */
import { Effect, Result } from "effect"
import { type FlagRow, flagsOf } from "../../../domain/tmux/PaneFormat.js"
import {
  fail,
  outcomeUnknown,
  type SendError,
  type SendOutcomeUnknown,
  sessionNotFound,
  type TermPilotError
} from "../../../services/Errors.js"
import type { Readiness } from "../../../services/Terminal.js"
import { claimAware } from "./Claims.js"
import { noteTokens } from "./Inventory.js"
import { entryReadiness } from "./PaneTable.js"
import type { ResolvedPane } from "./Registry.js"
import type { TmuxServer } from "./Server.js"

/** The pane's flag row over its own client; `session_not_found` when tmux has no such pane. */
export const flagsOfPane = ({ server, pane }: ResolvedPane, sessionId: string) =>
  Effect.flatMap(paneGoneOr(server, pane, sessionId)(server.flags(pane)), (row) =>
    row === null ? Effect.fail(sessionNotFound(sessionId)) : Effect.succeed(row)
  )

/**
 * A check before any send that failed because the control client it went over ended — as the
 * client attached to a session does when that session's last pane is killed — while the server
 * still answers over another client: the pane is looked up once over that one, and a pane that is
 * gone is `session_not_found`. Otherwise the original error stands (nothing was sent either way).
 */
export const paneGoneOr =
  (server: TmuxServer, pane: number, sessionId: string) =>
  <A>(effect: Effect.Effect<A, TermPilotError>): Effect.Effect<A, TermPilotError> =>
    Effect.catch(effect, (error) =>
      error.code !== "tmux_unavailable" || !server.alive
        ? Effect.fail(error)
        : Effect.flatMap(Effect.result(server.flags(pane)), (again) =>
            Result.isSuccess(again) && again.success === null
              ? Effect.fail(sessionNotFound(sessionId))
              : Effect.fail(error)
          )
    )

/** Readiness of `pane` from its flag row and its mark stream (noting its announced tokens). */
export const readinessOf = (server: TmuxServer, pane: number, row: FlagRow): Readiness => {
  const entry = server.panes.entry(pane)
  noteTokens(server, pane, row)
  const flags = flagsOf(row)
  return claimAware(entryReadiness(entry, flags), flags.claim)
}

/** A transport failure once the write may have left: `tmux_unavailable`, outcome unknown. */
export const mayHaveReached =
  (sessionId: string, what: string) =>
  (e: TermPilotError): SendOutcomeUnknown =>
    outcomeUnknown(
      "tmux_unavailable",
      `${e.message} The ${what} may or may not have reached session '${sessionId}'.`
    )

/**
 * When tmux refused one of the lines that type into a pane (`replies` in order): the first refused
 * means nothing was typed; a later one that some of `what` was (outcome unknown). Undefined when
 * every line was taken.
 */
export const typingRefusal = (
  replies: ReadonlyArray<{ readonly ok: boolean; readonly lines: ReadonlyArray<string> }>,
  sessionId: string,
  what: string
): SendError | undefined => {
  const refused = replies.findIndex((r) => !r.ok)
  if (refused < 0) return undefined
  if (refused === 0) {
    const why = replies[0]?.lines.join(" ") ?? ""
    return fail(
      "tmux_unavailable",
      `tmux refused to type into session '${sessionId}' (${why}); nothing was sent.`
    )
  }
  return outcomeUnknown(
    "tmux_unavailable",
    `tmux typed part of ${what} into session '${sessionId}' and then refused the rest.`
  )
}
