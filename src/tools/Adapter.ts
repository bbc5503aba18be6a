/**
 * The one adapter from a Tool to an MCP `CallToolResult`: decode the arguments (a failure is an
 * `invalid_request` tool error and nothing else runs), run the handler, encode the output.
 * TermPilotError → `{error_code, message}`; a defect → `internal_error`, logged (to stderr). A
 * call answers by its deadline (`deadline_exceeded`), whatever the backend is doing.
 */
import type { CallToolResult } from "@modelcontextprotocol/server"
import { Cause, Duration, Effect, Fiber, Option, Schema, SchemaIssue } from "effect"
import { deadlineExceeded, ErrorCode, fail, type TermPilotError } from "../domain/Errors.js"
import { AuditEvent, AuditLog, CommandTool } from "../services/AuditLog.js"
import type { CommandResult, InterruptResult } from "../services/CommandRunner.js"
import { Terminal } from "../services/Terminal.js"
import { currentToolSettings } from "../services/ToolSettings.js"
import { NOT_A_KNOWN_ARGUMENT } from "./Fields.js"
import type { Tool, ToolServices } from "./Tool.js"

/** What every failed call carries in `structuredContent`. */
export const ToolError = Schema.Struct({
  error_code: ErrorCode,
  message: Schema.String
})

export const INTERNAL_ERROR_MESSAGE = "Unexpected TermPilot failure."

export const errorResult = (code: ErrorCode, message: string): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: `${code}: ${message}` }],
  structuredContent: { error_code: code, message }
})

const fieldName = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0 ? "arguments" : path.map((key) => String(key)).join(".")

/** The first issue in the tree (the one the formatter lists first), with the path to it. */
const firstIssue = (
  issue: SchemaIssue.Issue,
  path: ReadonlyArray<PropertyKey>
): { readonly issue: SchemaIssue.Issue; readonly path: ReadonlyArray<PropertyKey> } => {
  switch (issue._tag) {
    case "Pointer":
      return firstIssue(issue.issue, [...path, ...issue.path])
    case "Filter":
    case "Encoding":
      return firstIssue(issue.issue, path)
    case "Composite":
      return firstIssue(issue.issues[0], path)
    case "AnyOf": {
      const [first] = issue.issues
      return first === undefined ? { issue, path } : firstIssue(first, path)
    }
    default:
      return { issue, path }
  }
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** One sentence for the first decoding issue, naming the field. */
export const describeParseError = (error: Schema.SchemaError): string => {
  const { issue, path } = firstIssue(error.issue, [])
  const message = formatIssues(error.issue).issues[0]?.message
  if (message === undefined) return "arguments are invalid"
  const field = fieldName(path)
  switch (issue._tag) {
    case "MissingKey":
      return `${field} is required`
    case "UnexpectedKey":
      return path.length === 0 ? "arguments must be an object" : `${field} ${NOT_A_KNOWN_ARGUMENT}`
    default:
      if (path.length === 0) return "arguments must be an object"
      return message === NOT_A_KNOWN_ARGUMENT ? `${field} ${NOT_A_KNOWN_ARGUMENT}` : message
  }
}

const LABEL_TIMEOUT = "2 seconds"

/** The titles of the session a command went to, as far as they can be had quickly. */
const sessionLabels = (sessionId: string) =>
  Effect.flatMap(Terminal, (terminal) => terminal.sessionLabels(sessionId)).pipe(
    Effect.timeout(LABEL_TIMEOUT),
    Effect.orElseSucceed((): ReadonlyArray<string> => [])
  )

const auditEvent = <I, IE, O, OE>(tool: Tool<I, IE, O, OE>, input: I, output: O, jsonText: string) => {
  if (tool.audit === "keys") {
    const sent = output as unknown as { request_id: string; session_id: string; keys: string }
    const event: AuditEvent = {
      _tag: "Keys",
      tool: tool.name,
      requestId: sent.request_id,
      sessionId: sent.session_id,
      keys: sent.keys
    }
    return Effect.succeed(event)
  }
  if (tool.audit === "command") {
    const name = tool.name
    if (!Schema.is(CommandTool)(name)) return Effect.die(new Error(`${name} is not a command tool`))
    const result = output as unknown as CommandResult | InterruptResult
    return Effect.map(sessionLabels(result.session_id), (labels) => AuditEvent.command(name, result, labels))
  }
  const target = (input as { readonly session_id?: unknown }).session_id
  const sessionId = typeof target === "string" ? target : null
  return Effect.succeed(
    tool.returnedText === undefined
      ? AuditEvent.read(tool.name, sessionId, jsonText, "json_text")
      : AuditEvent.read(tool.name, sessionId, tool.returnedText(output), "content")
  )
}

/**
 * Appends the call to the audit trail. `record` only queues the line (a background writer does the
 * I/O); looking up the session's labels for a command (one request: Terminal.sessionLabels) is
 * bounded by LABEL_TIMEOUT, and done after the command, so it never races the command's own
 * requests (nor meets a connection failure in their place). The digests are
 * of text exactly as returned: read_terminal's `content`, a command's `output` (after hygiene and
 * redaction), or else the JSON text block the client received.
 */
const recordAudit = <I, IE, O, OE>(tool: Tool<I, IE, O, OE>, input: I, output: O, jsonText: string) =>
  Effect.flatMap(Effect.serviceOption(AuditLog), (log) =>
    Option.isNone(log)
      ? Effect.void
      : Effect.flatMap(auditEvent(tool, input, output, jsonText), log.value.record)
  )

/**
 * Effect 3's `Effect.disconnect`: `self` runs in a detached fiber, so interrupting the caller (the
 * deadline's timeout) returns at once and only asks that fiber to stop, in the background.
 */
const disconnect = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkDetach(restore(self)), (fiber) =>
      restore(Fiber.join(fiber)).pipe(Effect.onInterrupt(() => Effect.sync(() => fiber.interruptUnsafe())))
    )
  )

/**
 * The handler, answered by the deadline: past it the call fails with `deadline_exceeded` at once and
 * the abandoned work is interrupted in the background (a backend request still in flight may take
 * until its own timeout to let go). Tools with `deadline: "self"` bound themselves.
 */
const withinDeadline = <I, IE, O, OE>(
  tool: Tool<I, IE, O, OE>,
  handler: Effect.Effect<O, TermPilotError, ToolServices>
): Effect.Effect<O, TermPilotError, ToolServices> =>
  tool.deadline === "self"
    ? handler
    : Effect.flatMap(currentToolSettings, ({ deadlineMs }) =>
        handler.pipe(
          disconnect,
          Effect.timeoutOrElse({
            duration: Duration.millis(deadlineMs),
            orElse: () => Effect.fail(deadlineExceeded(deadlineMs, "nothing was sent"))
          })
        )
      )

const decodeOptions = { onExcessProperty: "error", errors: "first" } as const

/** Run one tool call to completion. Never fails: every outcome is a CallToolResult. */
export const callTool = <I, IE, O, OE>(
  tool: Tool<I, IE, O, OE>,
  args: unknown
): Effect.Effect<CallToolResult, never, ToolServices> =>
  Schema.decodeUnknownEffect(
    tool.input,
    decodeOptions
  )(args ?? {}).pipe(
    Effect.mapError((error) => fail("invalid_request", describeParseError(error))),
    Effect.flatMap((input) =>
      withinDeadline(tool, tool.handler(input)).pipe(
        Effect.flatMap((output) =>
          Schema.encodeEffect(tool.output)(output).pipe(
            Effect.orDie,
            Effect.flatMap((encoded) => {
              const jsonText = JSON.stringify(encoded)
              const result: CallToolResult = {
                isError: tool.isErrorOutput?.(output) ?? false,
                content: [
                  { type: "text", text: tool.summary(output, input) },
                  { type: "text", text: jsonText }
                ],
                structuredContent: encoded as Record<string, unknown>
              }
              return Effect.as(recordAudit(tool, input, output, jsonText), result)
            })
          )
        )
      )
    ),
    Effect.catchTag("TermPilotError", (error) => Effect.succeed(errorResult(error.code, error.message))),
    Effect.catchCause((cause) =>
      Effect.logError("tool call failed unexpectedly", Cause.pretty(cause)).pipe(
        Effect.annotateLogs("tool", tool.name),
        Effect.as(errorResult("internal_error", INTERNAL_ERROR_MESSAGE))
      )
    )
  )
