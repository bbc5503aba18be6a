/**
 * The one adapter from a Tool to an MCP `CallToolResult`: decode the arguments (a failure is an
 * `invalid_request` tool error and nothing else runs), run the handler, encode the output.
 * TermPilotError → `{error_code, message}`; a defect → `internal_error`, logged (to stderr).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Cause, Effect, ParseResult, Schema } from "effect"
import { ErrorCode, fail } from "../services/Errors.js"
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

/** One sentence for the first decoding issue, naming the field. */
export const describeParseError = (error: ParseResult.ParseError): string => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (issue === undefined) return "arguments are invalid"
  const field = fieldName(issue.path)
  switch (issue._tag) {
    case "Missing":
      return `${field} is required`
    case "Unexpected":
      return issue.path.length === 0 ? "arguments must be an object" : `${field} ${NOT_A_KNOWN_ARGUMENT}`
    default:
      if (issue.path.length === 0) return "arguments must be an object"
      return issue.message === NOT_A_KNOWN_ARGUMENT ? `${field} ${NOT_A_KNOWN_ARGUMENT}` : issue.message
  }
}

const decodeOptions = { onExcessProperty: "error", errors: "first" } as const

/** Run one tool call to completion. Never fails: every outcome is a CallToolResult. */
export const callTool = <I, IE, O, OE>(
  tool: Tool<I, IE, O, OE>,
  args: unknown
): Effect.Effect<CallToolResult, never, ToolServices> =>
  Schema.decodeUnknown(
    tool.input,
    decodeOptions
  )(args ?? {}).pipe(
    Effect.mapError((error) => fail("invalid_request", describeParseError(error))),
    Effect.flatMap((input) => tool.handler(input)),
    Effect.flatMap((output) =>
      Schema.encode(tool.output)(output).pipe(
        Effect.orDie,
        Effect.map(
          (encoded): CallToolResult => ({
            isError: tool.isErrorOutput?.(output) ?? false,
            content: [
              { type: "text", text: tool.summary(output) },
              { type: "text", text: JSON.stringify(encoded) }
            ],
            structuredContent: encoded as Record<string, unknown>
          })
        )
      )
    ),
    Effect.catchTag("TermPilotError", (error) => Effect.succeed(errorResult(error.code, error.message))),
    Effect.catchAllCause((cause) =>
      Effect.logError("tool call failed unexpectedly", Cause.pretty(cause)).pipe(
        Effect.annotateLogs("tool", tool.name),
        Effect.as(errorResult("internal_error", INTERNAL_ERROR_MESSAGE))
      )
    )
  )
