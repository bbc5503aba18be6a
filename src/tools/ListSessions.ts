/**
 * list_sessions — every session the backend can see, with metadata and execution readiness.
 */
import { Effect, Schema } from "effect"
import { SessionInfo } from "../domain/Session.js"
import { listingOf, Terminal, UnavailableSource } from "../services/Terminal.js"
import { OBSERVATION_NOTE } from "./Descriptions.js"
import { NoArguments } from "./Fields.js"
import { observeSession } from "./Observation.js"
import { defineTool, readerAnnotations } from "./Tool.js"

export const ListSessionsInput = NoArguments
export const ListSessionsOutput = Schema.Struct({
  sessions: Schema.Array(SessionInfo),
  /** Sources that did not answer (a tmux host over ssh, a backend); the others' sessions are listed. */
  unavailable: Schema.Array(UnavailableSource)
})

export const listSessions = defineTool({
  name: "list_sessions",
  title: "List terminal sessions",
  description:
    "List the open terminal sessions (every window, tab and split pane) with their exact session_id, titles, " +
    "working directory, whether each is the focused one, its execution_readiness, and hosts_this_client (the " +
    "session this assistant itself runs in: TermPilot never types there); `unavailable` names the " +
    "sources (a tmux host over ssh, a backend) that did not answer. " +
    `Use the exact session_id with read_terminal and run_command. ${OBSERVATION_NOTE}`,
  annotations: readerAnnotations,
  input: ListSessionsInput,
  output: ListSessionsOutput,
  handler: Effect.fn("list_sessions")(function* () {
    const terminal = yield* Terminal
    const { sessions, unavailable } = yield* listingOf(terminal)
    return { sessions: sessions.map(observeSession), unavailable }
  }),
  summary: ({ sessions, unavailable }) =>
    unavailable.length === 0
      ? `Found ${sessions.length} terminal session(s).`
      : `Found ${sessions.length} terminal session(s); not answering: ${unavailable.map((u) => u.host ?? u.backend).join(", ")}.`
})
