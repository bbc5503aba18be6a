/**
 * get_current_session — the session that currently has focus.
 */
import { Effect } from "effect"
import { SessionInfo } from "../domain/Session.js"
import { Terminal } from "../services/Terminal.js"
import { OBSERVATION_NOTE } from "./Descriptions.js"
import { NoArguments } from "./Fields.js"
import { observeSession } from "./Observation.js"
import { defineTool, readerAnnotations } from "./Tool.js"

export const GetCurrentSessionInput = NoArguments

export const getCurrentSession = defineTool({
  name: "get_current_session",
  title: "Get the focused terminal session",
  description:
    "Return the terminal session that currently has keyboard focus, with its exact session_id and " +
    "execution_readiness. Focus can change at any time: act on the returned session_id, not on 'current'. " +
    OBSERVATION_NOTE,
  annotations: readerAnnotations,
  input: GetCurrentSessionInput,
  output: SessionInfo,
  handler: Effect.fn("get_current_session")(function* () {
    const terminal = yield* Terminal
    return observeSession(yield* terminal.currentSession)
  }),
  summary: (session) => `Current session: ${session.session_id} (${session.execution_readiness}).`
})
