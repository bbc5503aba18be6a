/**
 * CommandRunner — the run_command protocol (validate, resolve, re-check, watch, send, correlate,
 * read the bounded output) and the bounded registry of results for get_command_result.
 */
import { Context, type Effect, Schema } from "effect"
import { ErrorCode, type TermPilotError } from "./Errors.js"

export const CommandStatus = Schema.Literals([
  "completed",
  "timed_out",
  "submitted",
  "rejected",
  "session_lost",
  "error"
])
export type CommandStatus = typeof CommandStatus.Type

/**
 * The most lines of a command's output that can be returned (run_command's max_output_lines): what
 * the tmux backend keeps of a command's output (CAPTURE_BOUNDS in src/domain/tmux/TextRender.ts).
 */
export const MAX_OUTPUT_LINES = 2000

/** The result of one run_command, as returned by run_command and get_command_result. */
export const CommandResult = Schema.Struct({
  request_id: Schema.String,
  session_id: Schema.String,
  command: Schema.String,
  status: CommandStatus,
  sent: Schema.Boolean,
  exit_code: Schema.NullOr(Schema.Finite),
  transport_exit_code: Schema.NullOr(Schema.Finite).annotate({
    description:
      "When the shell the command ran in went away before it finished (error_code session_lost): the exit " +
      "status of what carried that shell (ssh, a container exec, a nested shell), as the enclosing shell " +
      "reported it; exit_code is then null. Null otherwise."
  }),
  output: Schema.NullOr(Schema.String),
  truncated: Schema.Boolean,
  output_line_count: Schema.Finite,
  total_output_lines: Schema.NullOr(Schema.Finite).annotate({
    description:
      "How many lines the command printed in all, also those left out of `output` (only its tail is kept); " +
      "null without output, or when the terminal cannot tell."
  }),
  started_at: Schema.String,
  finished_at: Schema.NullOr(Schema.String),
  duration_ms: Schema.NullOr(Schema.Finite),
  error_code: Schema.NullOr(ErrorCode),
  message: Schema.NullOr(Schema.String)
})
export type CommandResult = typeof CommandResult.Type

/**
 * What interrupt_command answers: the command's result as it stands after the wait (final, or its
 * output so far) with `still_running` when it did not end within the wait, and whether the
 * interrupt (one ETX) was sent by this call.
 */
export const InterruptStatus = Schema.Literals([...CommandStatus.literals, "still_running"])
export type InterruptStatus = typeof InterruptStatus.Type

export const InterruptResult = Schema.Struct({
  ...CommandResult.fields,
  status: InterruptStatus,
  interrupt_sent: Schema.Boolean
})
export type InterruptResult = typeof InterruptResult.Type

export interface RunRequest {
  readonly sessionId: string
  readonly command: string
  readonly waitForCompletion: boolean
  readonly timeoutSeconds: number
  readonly maxOutputChars: number
  /** Most lines of output returned (at most MAX_OUTPUT_LINES, what a backend keeps). */
  readonly maxOutputLines: number
}

export class CommandRunner extends Context.Service<
  CommandRunner,
  {
    /**
     * Run the protocol for an already validated request. Rejections after validation are results
     * (status `rejected`, `sent: false`), not failures; failures are only for the request itself.
     */
    readonly run: (request: RunRequest) => Effect.Effect<CommandResult, TermPilotError>
    /**
     * The current result of an earlier request, waiting up to `waitSeconds` for it to finish; a
     * command still running comes with its output so far (bounded tail, `truncated`).
     */
    readonly result: (requestId: string, waitSeconds: number) => Effect.Effect<CommandResult, TermPilotError>
    /**
     * Stop exactly the command `requestId` names, when TermPilot sent it and it is running: re-verify
     * at the terminal, send one ETX, wait up to `waitSeconds` for it to end. A finished command
     * answers with its final result, nothing sent. Fails, nothing sent, with `request_not_found`,
     * `command_not_running` (not started yet, or cannot be verified), `session_not_found` and the
     * Terminal.interrupt failures.
     */
    readonly interrupt: (
      requestId: string,
      waitSeconds: number
    ) => Effect.Effect<InterruptResult, TermPilotError>
  }
>()("termpilot/CommandRunner") {}
