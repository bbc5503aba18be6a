/**
 * CommandRunner — the run_command protocol (validate, resolve, re-check, watch, send, correlate,
 * read the bounded output) and the bounded registry of results for get_command_result.
 */
import { Context, type Effect, Schema } from "effect"
import { ErrorCode, type TermPilotError } from "./Errors.js"

export const CommandStatus = Schema.Literal(
  "completed",
  "timed_out",
  "submitted",
  "rejected",
  "session_lost",
  "error"
)
export type CommandStatus = typeof CommandStatus.Type

/** The result of one run_command, as returned by run_command and get_command_result. */
export const CommandResult = Schema.Struct({
  request_id: Schema.String,
  session_id: Schema.String,
  command: Schema.String,
  status: CommandStatus,
  sent: Schema.Boolean,
  exit_code: Schema.NullOr(Schema.Number),
  output: Schema.NullOr(Schema.String),
  truncated: Schema.Boolean,
  output_line_count: Schema.Number,
  started_at: Schema.String,
  finished_at: Schema.NullOr(Schema.String),
  duration_ms: Schema.NullOr(Schema.Number),
  error_code: Schema.NullOr(ErrorCode),
  message: Schema.NullOr(Schema.String)
})
export type CommandResult = typeof CommandResult.Type

export interface RunRequest {
  readonly sessionId: string
  readonly command: string
  readonly waitForCompletion: boolean
  readonly timeoutSeconds: number
  readonly maxOutputChars: number
}

export class CommandRunner extends Context.Tag("termpilot/CommandRunner")<
  CommandRunner,
  {
    /**
     * Run the protocol for an already validated request. Rejections after validation are results
     * (status `rejected`, `sent: false`), not failures; failures are only for the request itself.
     */
    readonly run: (request: RunRequest) => Effect.Effect<CommandResult, TermPilotError>
    /** The current result of an earlier request, waiting up to `waitSeconds` for it to finish. */
    readonly result: (requestId: string, waitSeconds: number) => Effect.Effect<CommandResult, TermPilotError>
  }
>() {}
