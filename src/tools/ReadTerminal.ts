/**
 * read_terminal — the bounded tail (screen plus scrollback) of one exact session, with its
 * execution readiness and the capture time; with `since` (an earlier read's `cursor`), only what
 * was written after that read.
 */
import { DateTime, Effect, Schema } from "effect"
import { TermPilotError } from "../domain/Errors.js"
import { UNTRUSTED_TERMINAL_NOTICE } from "../domain/Hygiene.js"
import { Readiness } from "../domain/Session.js"
import { Terminal } from "../services/Terminal.js"
import { decodeCursor, encodeCursor } from "./Cursors.js"
import { OBSERVATION_NOTE } from "./Descriptions.js"
import { Integer, identifierField, integerField } from "./Fields.js"
import { lineCount, observe } from "./Observation.js"
import { defineTool, readerAnnotations } from "./Tool.js"

export const MAX_READ_LINES = 2000
export const DEFAULT_READ_LINES = 200
export const MAX_CHARS = 131_072
export const DEFAULT_MAX_CHARS = 32_768
export const MAX_CURSOR_CHARS = 256

const sinceMessage = `since must be a string of at most ${MAX_CURSOR_CHARS} characters (a cursor read_terminal returned)`

export const ReadTerminalInput = Schema.Struct({
  session_id: identifierField("session_id", "Exact session_id from list_sessions or get_current_session."),
  max_lines: integerField("max_lines", {
    min: 1,
    max: MAX_READ_LINES,
    default: DEFAULT_READ_LINES,
    description: "Most lines to return; the newest lines are kept."
  }),
  max_chars: integerField("max_chars", {
    min: 1,
    max: MAX_CHARS,
    default: DEFAULT_MAX_CHARS,
    description: "Most characters (Unicode code points) to return; the newest whole lines are kept."
  }),
  since: Schema.optionalKey(
    Schema.String.annotate({ message: sinceMessage })
      .check(Schema.isMaxLength(MAX_CURSOR_CHARS, { message: sinceMessage }))
      .annotate({
        description:
          "The cursor an earlier read of this session returned; only lines written after it come back " +
          "(the line the cursor was on only if it changed, e.g. grew; nothing new returns nothing). Cursors " +
          "are valid only in the TermPilot process that returned them."
      })
  )
})

export const ReadTerminalOutput = Schema.Struct({
  session_id: Schema.String,
  content: Schema.String,
  line_count: Integer.annotate({ description: "an integer" }),
  truncated: Schema.Boolean,
  execution_readiness: Readiness,
  captured_at: Schema.String,
  redactions: Integer.annotate({
    description: "How many secrets in `content` were replaced by [REDACTED:kind] markers."
  }),
  cursor: Schema.String.annotate({
    description: "Where this read ended: pass it as `since` to a later read of this session."
  }),
  cursor_lost: Schema.Boolean.annotate({
    description:
      "True when a `since` read could not return every line written after the cursor (they left the " +
      "history): `content` is then the bounded tail of what is kept."
  })
})

export const readTerminal = defineTool({
  name: "read_terminal",
  title: "Read a terminal session",
  description:
    "Read the newest lines (visible screen and scrollback) of one exact session, bounded by max_lines and " +
    "max_chars, with its execution_readiness: only 'ready' (an empty shell prompt) accepts run_command. " +
    "Every read returns a cursor; pass it back as since to get only the lines written after that read " +
    "(cursor_lost true: some of them already left the history). " +
    OBSERVATION_NOTE,
  annotations: readerAnnotations,
  input: ReadTerminalInput,
  output: ReadTerminalOutput,
  handler: Effect.fn("read_terminal")(function* (input) {
    const since = input.since === undefined ? undefined : decodeCursor(input.session_id, input.since)
    if (since instanceof TermPilotError) return yield* since
    const terminal = yield* Terminal
    const bounds = { maxLines: input.max_lines, maxChars: input.max_chars }
    const snapshot = yield* since === undefined
      ? terminal.read(input.session_id, bounds)
      : terminal.read(input.session_id, bounds, since)
    const capturedAt = yield* DateTime.now
    const shown = yield* observe(snapshot.text)
    return {
      session_id: input.session_id,
      content: shown.text,
      line_count: lineCount(shown.text),
      redactions: shown.redactions,
      truncated: snapshot.truncated,
      execution_readiness: snapshot.readiness,
      captured_at: DateTime.formatIso(capturedAt),
      cursor: encodeCursor(input.session_id, snapshot.cursor),
      cursor_lost: snapshot.cursorLost
    }
  }),
  returnedText: (read) => read.content,
  summary: (read, input) => {
    const what = input.since === undefined ? "line(s)" : "new line(s) since the cursor"
    const lost = read.cursor_lost
      ? "; cursor_lost: lines after the cursor left the history, the kept ones are shown"
      : ""
    const older = read.truncated ? " (older lines left out)" : ""
    return (
      `${UNTRUSTED_TERMINAL_NOTICE}\nRead ${read.line_count} ${what} from session ${read.session_id}${older}${lost}; ` +
      `execution_readiness: ${read.execution_readiness}.`
    )
  }
})
