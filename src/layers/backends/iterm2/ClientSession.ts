/**
 * ClientSession — the iTerm2 session TermPilot never types into because the MCP client it serves
 * runs there: its `pid` (the session's own process) or its `tty` among TermPilot's ancestors'
 * (src/layers/backends/ClientHost.ts: /proc where there is one, else one bounded `ps` run, as on
 * macOS). Listed as `hosts_this_client`; refused before any send with `session_hosts_client`, from
 * the values read with the send's own check (no request of its own).
 */
import { Effect } from "effect"
import { asString } from "../../../domain/iterm2/VariableValue.js"
import { sessionHostsClient, type TermPilotError } from "../../../services/Errors.js"
import { hostsThisClient } from "../ClientHost.js"

/** The session variables the check reads, in this order. */
export const CLIENT_HOST_VARIABLES = ["pid", "tty"] as const

/** Whether a session with these `pid` and `tty` values (as iTerm2 reported them) hosts the client. */
export const hostsClient = (pid: unknown, tty: unknown): boolean =>
  hostsThisClient(typeof pid === "number" && Number.isSafeInteger(pid) ? pid : null, asString(tty))

/**
 * `session_hosts_client` when the session whose `pid` and `tty` values (CLIENT_HOST_VARIABLES, read
 * with the caller's own check before its send) hosts the MCP client; `what` (e.g. "a command") was
 * not typed.
 */
export const refuseClientSession = (
  sessionId: string,
  [pid, tty]: ReadonlyArray<unknown>,
  what: string
): Effect.Effect<void, TermPilotError> =>
  hostsClient(pid, tty) ? Effect.fail(sessionHostsClient(sessionId, what)) : Effect.void
