/**
 * CommandRunner — the backend-independent flows the tools call (src/layers/runner/): the
 * run_command protocol (validate, resolve, re-check, watch, send, correlate, read the bounded
 * output) and the bounded registry of results for get_command_result, interrupt_command's,
 * send_keys' (ask, then type) and wait_for_output's (watch, read-only); and which request typed
 * at a prompt (list_commands' `ran_by`).
 */
import { Context, type Effect, Schema } from "effect"
import type { KeyItem } from "../domain/Keys.js"
import type { LineMatcher } from "../domain/pattern/LineMatcher.js"
import type { CursorPosition } from "../domain/ReadCursor.js"
import type { ReadBounds } from "../domain/TextBounds.js"
import { ErrorCode, type TermPilotError } from "./Errors.js"
import type { Snapshot } from "./Terminal.js"

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

/** What send_keys typed (it fails when it typed nothing). */
export interface KeysSent {
  readonly request_id: string
  readonly session_id: string
  /** The keys in readable form, as the person approved them. */
  readonly keys: string
  readonly sent: boolean
  /** Where the session's output stood just before the keys were typed (the tool encodes it). */
  readonly cursor: CursorPosition
}

/** Why a wait_for_output wait stopped. */
export type OutputWaitReason = "matched" | "quiet" | "command_ended" | "timed_out" | "cancelled"

export interface OutputWaitSpec {
  readonly sessionId: string
  /** Where "new" starts: an earlier read's cursor, or (undefined) where the session is at the call. */
  readonly since: CursorPosition | undefined
  /** The pattern's matcher; null waits for quiet, the command's end or the timeout only. */
  readonly matcher: LineMatcher | null
  /** Quiet time that ends the wait; null: quiet does not end it. */
  readonly quietMs: number | null
  readonly timeoutMs: number
  /** Bounds of the tail returned. */
  readonly bounds: ReadBounds
  /** What the model would be shown of terminal text (hygiene, redaction): lines are matched on it. */
  readonly clean: (text: string) => string
  /** The longest one look at the terminal may take (the call deadline). */
  readonly readTimeoutMs: number
}

export interface OutputWaitEnd {
  readonly reason: OutputWaitReason
  /** The first new line that matched (as `clean` gave it), when `reason` is "matched". */
  readonly matchedLine: string | null
  /** The ended command's exit status, when `reason` is "command_ended" and the shell reported one. */
  readonly exitCode: number | null
  /** Whether the session's command ends could be watched (shell integration). */
  readonly watchedCommands: boolean
  /** The read from the starting cursor: all that was seen (bounded tail), and the new cursor. */
  readonly snapshot: Snapshot
  readonly waitedMs: number
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
    /**
     * send_keys: validate, ask the person (always, unless the unsafe config key says otherwise),
     * then, held to the call deadline and the client's cancel, note where the session's output
     * stands and type the keys (Terminal.sendKeys). Nothing is typed before an accept; a send that
     * may have left fails saying so.
     */
    readonly sendKeys: (
      sessionId: string,
      keys: ReadonlyArray<KeyItem>
    ) => Effect.Effect<KeysSent, TermPilotError>
    /**
     * wait_for_output: wait, bounded, until the session's new output has a line the matcher
     * accepts, goes quiet, or the command running there ends; read-only, never sends anything.
     */
    readonly waitForOutput: (spec: OutputWaitSpec) => Effect.Effect<OutputWaitEnd, TermPilotError>
    /**
     * The request_id of this process's run_command that typed its command at `promptId` of
     * `sessionId` (the prompt its submit named), while the runner keeps it (its last 256); null
     * for any other prompt (the person's command, another process's, or one too old to tell).
     */
    readonly requestAt: (sessionId: string, promptId: string) => Effect.Effect<string | null>
  }
>()("termpilot/CommandRunner") {}
