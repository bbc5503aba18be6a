/**
 * wait_for_output — wait, bounded, until a session's new output matches a pattern, goes quiet, or
 * the command running there ends; then the bounded tail of what came, why the wait stopped, and a
 * new cursor. For builds, servers and log tails the person started themselves. Reads only: it
 * never sends anything to a terminal.
 */
import { Effect, Schema } from "effect"
import { fail, TermPilotError } from "../domain/Errors.js"
import { UNTRUSTED_TERMINAL_NOTICE } from "../domain/Hygiene.js"
import { compileMatcher, type LineMatcher } from "../domain/pattern/LineMatcher.js"
import { PatternError } from "../domain/pattern/PatternSyntax.js"
import { Readiness } from "../domain/Session.js"
import { codePointTail } from "../domain/TextBounds.js"
import { CommandRunner } from "../services/CommandRunner.js"
import { currentToolSettings } from "../services/ToolSettings.js"
import { decodeCursor, encodeCursor } from "./Cursors.js"
import { OBSERVATION_NOTE } from "./Descriptions.js"
import { booleanField, finiteNumber, Integer, identifierField, positiveNumberField } from "./Fields.js"
import { lineCount, observe, observeText } from "./Observation.js"
import { ReadTerminalInput } from "./ReadTerminal.js"
import { defineTool, readerAnnotations } from "./Tool.js"

export const MAX_WAIT_SECONDS = 300
export const DEFAULT_WAIT_SECONDS = 30
/** The longest pattern, in code points. */
export const MAX_PATTERN_CHARS = 256

const patternMessage = `pattern must be a string of 1 to ${MAX_PATTERN_CHARS} characters without control characters (one line)`

const patternField = Schema.optionalKey(
  Schema.String.annotate({ message: patternMessage }).check(
    Schema.makeFilter(
      (value: string) => {
        const length = Array.from(value).length
        return length >= 1 && length <= MAX_PATTERN_CHARS && !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)
      },
      {
        description:
          "What to wait for in a new line: a literal substring, or with regex true a regular expression of the " +
          "linear-time subset in specs/tools.md (no backreferences, lookaround or \\b). Matched line by line on " +
          "the text as read_terminal shows it.",
        toJsonSchema: () => ({ minLength: 1, maxLength: MAX_PATTERN_CHARS }),
        message: patternMessage
      }
    )
  )
)

const quietMessage = `quiet_seconds must be a number greater than 0 and at most ${MAX_WAIT_SECONDS}`

const quietField = Schema.optionalKey(
  finiteNumber(quietMessage)
    .check(
      Schema.isGreaterThan(0, { message: quietMessage }),
      Schema.isLessThanOrEqualTo(MAX_WAIT_SECONDS, { message: quietMessage })
    )
    .annotate({
      description:
        "Stop once the session has written nothing for this many seconds; unset, quiet does not stop the wait."
    })
)

export const WaitForOutputInput = Schema.Struct({
  session_id: identifierField("session_id", "Exact session_id from list_sessions or get_current_session."),
  pattern: patternField,
  regex: booleanField("regex", false, "Read pattern as a regular expression (the subset in specs/tools.md)."),
  ignore_case: booleanField("ignore_case", false, "Match letters in either case."),
  quiet_seconds: quietField,
  timeout_seconds: positiveNumberField("timeout_seconds", {
    min: 0,
    max: MAX_WAIT_SECONDS,
    default: DEFAULT_WAIT_SECONDS,
    description: "The longest the call waits; then it answers with stopped 'timed_out'."
  }),
  since: ReadTerminalInput.fields.since,
  max_lines: ReadTerminalInput.fields.max_lines,
  max_chars: ReadTerminalInput.fields.max_chars
})

export const WaitStopped = Schema.Literals(["matched", "quiet", "command_ended", "timed_out", "cancelled"])

export const WaitForOutputOutput = Schema.Struct({
  session_id: Schema.String,
  stopped: WaitStopped.annotate({
    description:
      "Why the wait stopped: 'matched' (a new line matched pattern), 'quiet' (nothing written for " +
      "quiet_seconds), 'command_ended' (the command running there ended), 'timed_out', or 'cancelled' " +
      "(the client cancelled; a cancelled call gets no answer, so only the audit trail has the call)."
  }),
  matched_line: Schema.NullOr(Schema.String).annotate({
    description:
      "The first new line that matched, as shown in content (at most max_chars, its end kept); null unless stopped is 'matched'."
  }),
  exit_code: Schema.NullOr(Schema.Number).annotate({
    description:
      "The ended command's exit status, when stopped is 'command_ended' and the shell reported one."
  }),
  command_end_watched: Schema.Boolean.annotate({
    description:
      "Whether the end of a command could be seen (shell integration); false: never 'command_ended'."
  }),
  content: Schema.String,
  line_count: Integer.annotate({ description: "an integer" }),
  truncated: Schema.Boolean,
  redactions: Integer.annotate({
    description: "How many secrets in `content` were replaced by [REDACTED:kind] markers."
  }),
  execution_readiness: Readiness,
  waited_ms: Integer.annotate({ description: "an integer" }),
  cursor: Schema.String.annotate({
    description: "Where this wait ended: pass it as `since` to read_terminal or to the next wait_for_output."
  }),
  cursor_lost: Schema.Boolean.annotate({
    description: "True when some of the new lines already left the history: `content` is then the kept tail."
  })
})

/** The matcher of the input's pattern (null without one), or why the pattern is refused. */
const matcherOf = (input: typeof WaitForOutputInput.Type): LineMatcher | null | TermPilotError => {
  if (input.pattern === undefined) return null
  const matcher = compileMatcher(input.pattern, { regex: input.regex, ignoreCase: input.ignore_case })
  if (matcher instanceof PatternError)
    return fail("invalid_request", `pattern is not supported: ${matcher.reason}.`)
  return matcher
}

export const waitForOutput = defineTool({
  name: "wait_for_output",
  title: "Wait for a session's output",
  description:
    "Wait (up to timeout_seconds, default 30, at most 300) until one exact session's new output has a line " +
    "matching pattern, or nothing new for quiet_seconds, or the command running there ends (with its exit_code " +
    "when shell integration reports it), whichever comes first. New means after since (a cursor from " +
    "read_terminal or wait_for_output) or, without it, after the call starts. Returns why it stopped, the " +
    "bounded tail of the new output and a cursor for the next read or wait. Use it to follow builds, servers " +
    "and log tails the user started, instead of calling read_terminal again and again. This never sends " +
    `anything to a terminal. ${OBSERVATION_NOTE}`,
  annotations: readerAnnotations,
  input: WaitForOutputInput,
  output: WaitForOutputOutput,
  deadline: "self",
  cancellation: "self",
  handler: Effect.fn("wait_for_output")(function* (input) {
    const since = input.since === undefined ? undefined : decodeCursor(input.session_id, input.since)
    if (since instanceof TermPilotError) return yield* since
    const matcher = matcherOf(input)
    if (matcher instanceof TermPilotError) return yield* matcher
    const settings = yield* currentToolSettings
    const runner = yield* CommandRunner
    const end = yield* runner.waitForOutput({
      sessionId: input.session_id,
      since,
      matcher,
      quietMs: input.quiet_seconds === undefined ? null : input.quiet_seconds * 1000,
      timeoutMs: input.timeout_seconds * 1000,
      bounds: { maxLines: input.max_lines, maxChars: input.max_chars },
      clean: (text) => observeText(text, settings.redactSecrets).text,
      readTimeoutMs: settings.deadlineMs
    })
    const shown = yield* observe(end.snapshot.text)
    return {
      session_id: input.session_id,
      stopped: end.reason,
      matched_line: end.matchedLine === null ? null : codePointTail(end.matchedLine, input.max_chars),
      exit_code: end.exitCode,
      command_end_watched: end.watchedCommands,
      content: shown.text,
      line_count: lineCount(shown.text),
      truncated: end.snapshot.truncated,
      redactions: shown.redactions,
      execution_readiness: end.snapshot.readiness,
      waited_ms: Math.round(end.waitedMs),
      cursor: encodeCursor(input.session_id, end.snapshot.cursor),
      cursor_lost: end.snapshot.cursorLost
    }
  }),
  returnedText: (wait) => wait.content,
  summary: (wait) => {
    const seconds = (wait.waited_ms / 1000).toFixed(1)
    const why =
      wait.stopped === "matched"
        ? "a new line matched the pattern"
        : wait.stopped === "quiet"
          ? "the session was quiet for quiet_seconds"
          : wait.stopped === "command_ended"
            ? `the command ended${wait.exit_code === null ? "" : ` with exit code ${wait.exit_code}`}`
            : wait.stopped === "timed_out"
              ? "timeout_seconds passed"
              : "the client cancelled"
    const older = wait.truncated ? " (older lines left out)" : ""
    const lost = wait.cursor_lost ? "; cursor_lost: some new lines left the history" : ""
    return (
      `${UNTRUSTED_TERMINAL_NOTICE}\nStopped waiting on session ${wait.session_id} after ${seconds} s: ${why}; ` +
      `${wait.line_count} new line(s)${older}${lost}; execution_readiness: ${wait.execution_readiness}.`
    )
  }
})
