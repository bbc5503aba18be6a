/**
 * ClientPane — the tmux panes TermPilot never types into because the MCP client it serves runs
 * there: the pane TermPilot itself runs in (`$TMUX_PANE` on the server of `$TMUX`, as configured),
 * and a pane whose process or terminal is among TermPilot's ancestors' (src/layers/backends/
 * ClientHost.ts). Both are `hosts_this_client` in the listing and refused with
 * `session_hosts_client`, nothing sent. Another host's pane is never matched by the process tree
 * (its processes are not this machine's).
 */
import { resolve as resolvePath } from "node:path"
import { Effect } from "effect"
import { type FlagRow, flagsOf, type PaneFlags } from "../../../domain/tmux/PaneFormat.js"
import type { TmuxPaneId } from "../../../domain/tmux/TmuxId.js"
import { sessionHostsClient, type TermPilotError } from "../../../services/Errors.js"
import { hostsThisClient } from "../ClientHost.js"
import type { TmuxServer } from "./Server.js"

/** The pane TermPilot itself runs in, from its environment. */
export interface OwnPane {
  readonly socket: string
  readonly pane: string
}

/** Whether the pane `id` is TermPilot's own (`own`, as configured). */
export const isOwnPane = (own: OwnPane | null, id: Omit<TmuxPaneId, "pid" | "startTime">): boolean =>
  own !== null && id.host === undefined && resolvePath(own.socket) === id.socket && own.pane === `%${id.pane}`

/** Whether the pane with these flags hosts the MCP client by the process tree (never another host's). */
export const paneHostsClient = (server: TmuxServer, flags: PaneFlags): boolean =>
  !server.remote && hostsThisClient(flags.panePid, flags.tty ?? null)

/** `session_hosts_client` when `id` is TermPilot's own pane; `what` (e.g. "a command") was not typed. */
export const refuseOwnPane = (
  own: OwnPane | null,
  id: TmuxPaneId,
  sessionId: string,
  what: string
): Effect.Effect<void, TermPilotError> =>
  isOwnPane(own, id) ? Effect.fail(sessionHostsClient(sessionId, what)) : Effect.void

/**
 * `session_hosts_client` when the pane of `row` (its flag row, read just before the send) hosts the
 * MCP client by the process tree; `what` (e.g. "a command") was not typed.
 */
export const refuseClientHost = (
  server: TmuxServer,
  row: FlagRow,
  sessionId: string,
  what: string
): Effect.Effect<void, TermPilotError> =>
  paneHostsClient(server, flagsOf(row)) ? Effect.fail(sessionHostsClient(sessionId, what)) : Effect.void
