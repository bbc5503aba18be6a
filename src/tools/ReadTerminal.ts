/**
 * read_terminal — the bounded tail (screen plus scrollback) of one exact session, with its
 * execution readiness and the capture time.
 */
import { DateTime, Effect, Schema } from "effect"
import { UNTRUSTED_TERMINAL_NOTICE } from "../domain/Hygiene.js"
import { Readiness, Terminal } from "../services/Terminal.js"
import { OBSERVATION_NOTE } from "./Descriptions.js"
import { identifierField, integerField } from "./Fields.js"
import { lineCount, observe } from "./Observation.js"
import { defineTool, readerAnnotations } from "./Tool.js"

export const MAX_READ_LINES = 2000
export const MAX_CHARS = 131_072
export const DEFAULT_MAX_CHARS = 32_768

export const ReadTerminalInput = Schema.Struct({
  session_id: identifierField("session_id", "Exact session_id from list_sessions or get_current_session."),
  max_lines: integerField("max_lines", {
    min: 1,
    max: MAX_READ_LINES,
    default: 200,
    description: "Most lines to return; the newest lines are kept."
  }),
  max_chars: integerField("max_chars", {
    min: 1,
    max: MAX_CHARS,
    default: DEFAULT_MAX_CHARS,
    description: "Most characters (Unicode code points) to return; the newest whole lines are kept."
  })
})

export const ReadTerminalOutput = Schema.Struct({
  session_id: Schema.String,
  content: Schema.String,
  line_count: Schema.Number.pipe(Schema.int()),
  truncated: Schema.Boolean,
  execution_readiness: Readiness,
  captured_at: Schema.String,
  redactions: Schema.Int.annotations({
    description: "How many secrets in `content` were replaced by [REDACTED:kind] markers."
  })
})

export const readTerminal = defineTool({
  name: "read_terminal",
  title: "Read a terminal session",
  description:
    "Read the newest lines (visible screen and scrollback) of one exact session, bounded by max_lines and " +
    "max_chars, with its execution_readiness: only 'ready' (an empty shell prompt) accepts run_command. " +
    OBSERVATION_NOTE,
  annotations: readerAnnotations,
  input: ReadTerminalInput,
  output: ReadTerminalOutput,
  handler: Effect.fn("read_terminal")(function* (input) {
    const terminal = yield* Terminal
    const snapshot = yield* terminal.read(input.session_id, {
      maxLines: input.max_lines,
      maxChars: input.max_chars
    })
    const capturedAt = yield* DateTime.now
    const shown = yield* observe(snapshot.text)
    return {
      session_id: input.session_id,
      content: shown.text,
      line_count: lineCount(shown.text),
      redactions: shown.redactions,
      truncated: snapshot.truncated,
      execution_readiness: snapshot.readiness,
      captured_at: DateTime.formatIso(capturedAt)
    }
  }),
  returnedText: (read) => read.content,
  summary: (read) =>
    `${UNTRUSTED_TERMINAL_NOTICE}\nRead ${read.line_count} line(s) from session ${read.session_id}${read.truncated ? " (older lines left out)" : ""}; ` +
    `execution_readiness: ${read.execution_readiness}.`
})
