/**
 * read_command_output — exactly the output of one command list_commands listed (nothing of its
 * prompt, its command line or the next prompt), read from the terminal's own history, bounded like
 * read_terminal from its tail, its head or a line offset. The command_id is checked (this session,
 * this process, unedited) before anything is read. Reads only.
 */
import { Effect, Schema } from "effect"
import { TermPilotError } from "../domain/Errors.js"
import { UNTRUSTED_TERMINAL_NOTICE } from "../domain/Hygiene.js"
import { Terminal } from "../services/Terminal.js"
import { decodeCommandId } from "./CommandIds.js"
import { OBSERVATION_NOTE } from "./Descriptions.js"
import { Integer, identifierField, integerField, outputFromField } from "./Fields.js"
import { ListedCommandStatus } from "./ListCommands.js"
import { lineCount, observe } from "./Observation.js"
import { DEFAULT_MAX_CHARS, DEFAULT_READ_LINES, MAX_CHARS, MAX_READ_LINES } from "./ReadTerminal.js"
import { defineTool, readerAnnotations } from "./Tool.js"

export const ReadCommandOutputInput = Schema.Struct({
  session_id: identifierField("session_id", "Exact session_id the command_id was listed for."),
  command_id: identifierField("command_id", "A command_id list_commands returned for this session, exactly."),
  // read_terminal's bounds, described for a read that may start at the head.
  max_lines: integerField("max_lines", {
    min: 1,
    max: MAX_READ_LINES,
    default: DEFAULT_READ_LINES,
    description:
      "Most lines to return: from the tail the newest are kept, otherwise the first from `from` on."
  }),
  max_chars: integerField("max_chars", {
    min: 1,
    max: MAX_CHARS,
    default: DEFAULT_MAX_CHARS,
    description: "Most characters (Unicode code points) to return, whole lines kept as for max_lines."
  }),
  from: outputFromField(
    "Where the lines returned start: 'tail' (the newest lines of the output), 'head' (its first lines) " +
      "or a line offset from the output's start (0 is its first line)."
  )
})

export const ReadCommandOutputOutput = Schema.Struct({
  session_id: Schema.String,
  command_id: Schema.String,
  output: Schema.String,
  line_count: Integer.annotate({ description: "Lines in `output`." }),
  total_output_lines: Integer.annotate({
    description: "Lines of output the command wrote in all, those returned or not, kept or gone."
  }),
  first_line: Integer.annotate({
    description: "Offset, in lines from the output's start, of the first line of `output`."
  }),
  lost_lines: Integer.annotate({
    description: "Lines at the start of the output that already left the terminal's history (0 normally)."
  }),
  truncated: Schema.Boolean,
  exit_code: Schema.NullOr(Integer),
  status: ListedCommandStatus,
  redactions: Integer.annotate({
    description: "How many secrets in `output` were replaced by [REDACTED:kind] markers."
  })
})

export const readCommandOutput = defineTool({
  name: "read_command_output",
  title: "Read a command's output",
  description:
    "Read exactly the output of one command list_commands returned (by its command_id, for the same " +
    "session): only what that command printed, bounded by max_lines and max_chars, from its tail (default), " +
    "its head, or a line offset; with total_output_lines, first_line and lost_lines to page through it. " +
    `This never sends anything to a terminal. ${OBSERVATION_NOTE}`,
  annotations: readerAnnotations,
  input: ReadCommandOutputInput,
  output: ReadCommandOutputOutput,
  handler: Effect.fn("read_command_output")(function* (input) {
    const key = decodeCommandId(input.session_id, input.command_id, "command_id")
    if (key instanceof TermPilotError) return yield* key
    const terminal = yield* Terminal
    const bounds = { maxLines: input.max_lines, maxChars: input.max_chars }
    const read = yield* terminal.commandText(input.session_id, key, bounds, input.from)
    const shown = yield* observe(read.text)
    return {
      session_id: input.session_id,
      command_id: input.command_id,
      output: shown.text,
      line_count: lineCount(shown.text),
      total_output_lines: read.totalLines,
      first_line: read.firstLine,
      lost_lines: read.lostLines,
      truncated: read.truncated,
      exit_code: read.exitCode,
      status: read.status,
      redactions: shown.redactions
    }
  }),
  returnedText: (read) => read.output,
  summary: (read) => {
    const lost = read.lost_lines > 0 ? `; its first ${read.lost_lines} line(s) left the history` : ""
    const exit = read.exit_code === null ? "" : `, exit_code ${read.exit_code}`
    return (
      `${UNTRUSTED_TERMINAL_NOTICE}\nRead ${read.line_count} line(s) from line ${read.first_line} of ` +
      `${read.total_output_lines} of the command's output${read.truncated ? " (bounded)" : ""}${lost}; ` +
      `status ${read.status}${exit}.`
    )
  }
})
