/**
 * Builders for the CommandResult of each run_command outcome, so every status carries the same
 * keys, the right `sent` flag and a message a person can act on, and the sent/rejected rule for a
 * failed submit. No effects here.
 */
import type { CommandResult, RunRequest } from "../../services/CommandRunner.js"
import { deadlineExceeded, type ErrorCode, type SendError } from "../../services/Errors.js"
import type { CommandOutput } from "../../services/Terminal.js"

/** What every result of one request shares. */
export interface RequestContext {
  readonly request: RunRequest
  readonly requestId: string
  readonly startedMs: number
  /** How long the pre-send phase may take (the call deadline, ToolSettings.deadlineMs). */
  readonly deadlineMs: number
}

const iso = (ms: number): string => new Date(ms).toISOString()

const base = (ctx: RequestContext): CommandResult => ({
  request_id: ctx.requestId,
  session_id: ctx.request.sessionId,
  command: ctx.request.command,
  status: "submitted",
  sent: false,
  exit_code: null,
  transport_exit_code: null,
  output: null,
  truncated: false,
  output_line_count: 0,
  total_output_lines: null,
  started_at: iso(ctx.startedMs),
  finished_at: null,
  duration_ms: null,
  error_code: null,
  message: null
})

const finished = (ctx: RequestContext, atMs: number) => ({
  finished_at: iso(atMs),
  duration_ms: Math.max(0, atMs - ctx.startedMs)
})

/** Nothing was sent: the session refused it (`rejected`) or the backend failed before sending (`error`). */
export const notSent = (
  ctx: RequestContext,
  status: "rejected" | "error",
  code: ErrorCode,
  message: string,
  atMs: number
): CommandResult => ({ ...base(ctx), ...finished(ctx, atMs), status, error_code: code, message })

/** The send failed in a way that may have typed the command: reported as sent, never as rejected. */
export const maybeSent = (
  ctx: RequestContext,
  code: ErrorCode,
  detail: string,
  atMs: number
): CommandResult => ({
  ...base(ctx),
  ...finished(ctx, atMs),
  status: "error",
  sent: true,
  error_code: code,
  message: `Sending the command to session '${ctx.request.sessionId}' failed partway (${detail}); it may have been typed into the session. Read the terminal before retrying.`
})

/**
 * The send phase was stopped before anything was sent: at the call deadline, or because the client
 * cancelled the call.
 */
export const stoppedBeforeSend = (
  ctx: RequestContext,
  reason: "deadline" | "cancelled",
  atMs: number
): CommandResult => {
  if (reason === "cancelled") {
    const message = "The client cancelled the call before the command was sent; nothing was sent."
    return notSent(ctx, "error", "request_cancelled", message, atMs)
  }
  const e = deadlineExceeded(ctx.deadlineMs, "nothing was sent")
  return notSent(ctx, "error", e.code, e.message, atMs)
}

export const submitted = (ctx: RequestContext): CommandResult => ({ ...base(ctx), sent: true })

/** run_command's caller cancelled its wait: the command was sent and is still being watched. */
export const waitCancelled = (ctx: RequestContext): CommandResult => ({
  ...submitted(ctx),
  message: `The client cancelled the wait; the command keeps running. Use get_command_result with request_id ${ctx.requestId} to get its result.`
})

/** `result` carrying `output` (a final one's, or a pending snapshot's output so far). */
export const withOutput = (result: CommandResult, output: CommandOutput): CommandResult => ({
  ...result,
  output: output.text,
  truncated: output.truncated,
  output_line_count: output.lineCount,
  // Never fewer than returned (a backend's count and its rendering may disagree on a last partial line).
  total_output_lines: output.totalLines === null ? null : Math.max(output.totalLines, output.lineCount)
})

export const timedOut = (ctx: RequestContext): CommandResult => ({
  ...base(ctx),
  status: "timed_out",
  sent: true,
  error_code: "command_timeout",
  message: `Stopped waiting after ${ctx.request.timeoutSeconds} seconds; the command may still be running. Use get_command_result with request_id ${ctx.requestId} to get its result later.`
})

/**
 * The background watch itself gave up (it is bounded so nothing is watched forever). Final, so
 * `error` rather than `timed_out`, which tells callers to poll again.
 */
export const watchExpired = (ctx: RequestContext, hours: number, atMs: number): CommandResult => ({
  ...base(ctx),
  ...finished(ctx, atMs),
  status: "error",
  sent: true,
  error_code: "command_timeout",
  message: `Stopped watching after ${hours} hours without an exit status; the command may still be running. Read the terminal to see what happened.`
})

export const completed = (
  ctx: RequestContext,
  exitCode: number,
  output: CommandOutput,
  atMs: number
): CommandResult =>
  withOutput(
    { ...base(ctx), ...finished(ctx, atMs), status: "completed", sent: true, exit_code: exitCode },
    output
  )

export const aborted = (ctx: RequestContext, atMs: number): CommandResult => ({
  ...base(ctx),
  ...finished(ctx, atMs),
  status: "completed",
  sent: true,
  message:
    "The shell showed a new prompt without reporting an exit status: the command line was probably cancelled or edited before it ran."
})

/** Sent and observed, but the outcome is an error; `exitCode` is kept when it is known. */
export const sentError = (
  ctx: RequestContext,
  code: ErrorCode,
  message: string,
  atMs: number,
  exitCode: number | null = null
): CommandResult => ({
  ...base(ctx),
  ...finished(ctx, atMs),
  status: "error",
  sent: true,
  exit_code: exitCode,
  error_code: code,
  message
})

/**
 * The shell the command was typed in went away before it reported the command's end: the shell
 * that carried it (its ssh, container exec or nested shell was running when ours was typed) reported
 * its own end with `transportExitCode`. The command's exit status is unknown; what it printed until
 * then is kept when the terminal has it.
 */
export const shellGone = (
  ctx: RequestContext,
  transportExitCode: number | null,
  output: CommandOutput | null,
  atMs: number
): CommandResult => {
  const result: CommandResult = {
    ...base(ctx),
    ...finished(ctx, atMs),
    status: "error",
    sent: true,
    transport_exit_code: transportExitCode,
    error_code: "session_lost",
    message: `The shell the command ran in (in session '${ctx.request.sessionId}') went away before the command reported an exit status: the connection or program that carried that shell (ssh, a container, a nested shell) ended${transportExitCode === null ? "" : ` with exit status ${transportExitCode} (transport_exit_code)`}. The command may not have finished; its exit status is unknown. Read the terminal before doing anything else there.`
  }
  return output === null ? result : withOutput(result, output)
}

export const sessionLost = (ctx: RequestContext, atMs: number): CommandResult => ({
  ...base(ctx),
  ...finished(ctx, atMs),
  status: "session_lost",
  sent: true,
  error_code: "session_lost",
  message: `Session '${ctx.request.sessionId}' closed before the command finished; its exit status is unknown.`
})

/**
 * The sent/rejected rule for a failed `submit`. The Terminal contract's "fails having sent nothing"
 * codes → `rejected`, sent false. A backend's unavailable code (`iterm2_unavailable`,
 * `tmux_unavailable`) → `error`, sent false: the backend could not be reached before sending —
 * unless it is a `SendOutcomeUnknown` (the request left but no reply came). Any other failure, or a
 * defect → `error`, sent true (maybe sent).
 */
export const REJECTED_CODES: ReadonlySet<ErrorCode> = new Set([
  "session_not_found",
  "session_not_ready",
  // Another TermPilot process holds the session (its claim refused ours before anything was typed).
  "session_claimed",
  // The session hosts the MCP client TermPilot serves: refused before anything was typed.
  "session_hosts_client",
  "shell_integration_required",
  "not_permitted",
  // The approval gate's refusals (nothing is ever sent before its answer).
  "declined_by_user",
  "approval_timed_out",
  "approval_unavailable"
])

const UNREACHABLE_CODES: ReadonlySet<ErrorCode> = new Set(["iterm2_unavailable", "tmux_unavailable"])

export const submitFailure = (ctx: RequestContext, e: SendError, now: number): CommandResult =>
  e._tag === "SendOutcomeUnknown"
    ? maybeSent(ctx, e.code, e.message, now)
    : REJECTED_CODES.has(e.code)
      ? notSent(ctx, "rejected", e.code, e.message, now)
      : UNREACHABLE_CODES.has(e.code)
        ? notSent(ctx, "error", e.code, e.message, now)
        : maybeSent(ctx, e.code, e.message, now)
