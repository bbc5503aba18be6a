/**
 * list_sessions — every session the backend can see, with metadata and execution readiness.
 */
import { Effect, Schema } from "effect"
import { SessionInfo, Terminal } from "../services/Terminal.js"
import { OBSERVATION_NOTE } from "./Descriptions.js"
import { NoArguments } from "./Fields.js"
import { observeSession } from "./Observation.js"
import { defineTool, readerAnnotations } from "./Tool.js"

export const ListSessionsInput = NoArguments
export const ListSessionsOutput = Schema.Struct({ sessions: Schema.Array(SessionInfo) })

export const listSessions = defineTool({
  name: "list_sessions",
  title: "List terminal sessions",
  description:
    "List the open terminal sessions (every window, tab and split pane) with their exact session_id, titles, " +
    "working directory, whether each is the focused one, and its execution_readiness. " +
    `Use the exact session_id with read_terminal and run_command. ${OBSERVATION_NOTE}`,
  annotations: readerAnnotations,
  input: ListSessionsInput,
  output: ListSessionsOutput,
  handler: Effect.fn("list_sessions")(function* () {
    const terminal = yield* Terminal
    return { sessions: (yield* terminal.listSessions).map(observeSession) }
  }),
  summary: ({ sessions }) => `Found ${sessions.length} terminal session(s).`
})
