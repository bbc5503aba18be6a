/**
 * ClientHostGuard — the terminal as the approval gate sees it: a session that hosts the MCP client
 * TermPilot serves (SessionInfo.hosts_this_client) is refused with `session_hosts_client` when the
 * gate looks it up, so the person is never asked to approve typing into the assistant's own
 * terminal. The backends refuse it again just before any send (whether or not the gate asked).
 */
import { Effect } from "effect"
import { sessionHostsClient } from "../../services/Errors.js"
import type { Terminal } from "../../services/Terminal.js"

/** `terminal` whose `getSession` refuses a session hosting the client; `what` would have been typed there. */
export const refusingClientHost = (terminal: Terminal["Service"], what: string): Terminal["Service"] => ({
  ...terminal,
  getSession: (sessionId) =>
    Effect.flatMap(terminal.getSession(sessionId), (session) =>
      session.hosts_this_client ? Effect.fail(sessionHostsClient(sessionId, what)) : Effect.succeed(session)
    )
})
