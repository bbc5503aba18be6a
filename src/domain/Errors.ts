/**
 * Errors — the stable error codes and the tagged error that carries them to the MCP caller, and
 * the one wording of the failures several layers report (session not found, deadline, claimed).
 * Every expected failure a tool can report is a `TermPilotError` with one of these codes;
 * defects (broken invariants) are reported as `internal_error` by the tool adapter. Pure: the
 * contracts (src/services/Errors.ts) re-export it.
 */
import { Schema } from "effect"

/** The stable, documented error codes (specs/errors.md). Never rename one. */
export const ErrorCode = Schema.Literals([
  "invalid_request",
  "iterm2_unavailable",
  "tmux_unavailable",
  "session_not_found",
  "no_current_session",
  "session_not_ready",
  "session_claimed",
  "session_hosts_client",
  "shell_integration_required",
  "command_in_flight",
  "command_timeout",
  "command_unattributed",
  "command_not_running",
  "session_lost",
  "output_unavailable",
  "request_not_found",
  "not_permitted",
  "deadline_exceeded",
  "request_cancelled",
  "declined_by_user",
  "approval_timed_out",
  "approval_unavailable",
  "internal_error"
])
export type ErrorCode = typeof ErrorCode.Type

/** An expected failure with a stable code and a message a person can act on. */
export class TermPilotError extends Schema.TaggedError<TermPilotError>()("TermPilotError", {
  code: ErrorCode,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

export const fail = (code: ErrorCode, message: string, cause?: unknown) =>
  new TermPilotError(cause === undefined ? { code, message } : { code, message, cause })

/**
 * A send that failed once its bytes may have left: the backend cannot say whether the terminal got
 * them (a transport dropped mid-write, tmux took some lines and refused the rest, iTerm2 sent no
 * reply to SendText). Its own type, not a flag on TermPilotError: the runner must handle it, and it
 * reports "maybe sent" (`sent: true`), never "nothing was sent". `code` is the stable code the caller
 * sees (`tmux_unavailable`, `iterm2_unavailable`, `internal_error`).
 */
export class SendOutcomeUnknown extends Schema.TaggedError<SendOutcomeUnknown>()("SendOutcomeUnknown", {
  code: ErrorCode,
  message: Schema.String
}) {}

/** What a send can fail with: refused before anything left, or with its outcome unknown. */
export type SendError = TermPilotError | SendOutcomeUnknown

/** The send failed partway: `code` and `message` as the caller will see them. */
export const outcomeUnknown = (code: ErrorCode, message: string) => new SendOutcomeUnknown({ code, message })

/** The one way to say an id names no session the caller may use (unknown, closed or hidden). */
export const sessionNotFound = (sessionId: string) =>
  fail(
    "session_not_found",
    `Session '${sessionId}' was not found. Use list_sessions to get exact session ids; titles and labels are not ids.`
  )

/**
 * The one way to say a call ran out of its deadline (ToolSettings.deadlineMs) before the terminal
 * answered; `what` says what was not done, e.g. "nothing was sent".
 */
export const deadlineExceeded = (deadlineMs: number, what: string) =>
  fail(
    "deadline_exceeded",
    `The terminal did not answer within ${deadlineMs / 1000} s (the deadline of a tool call); ${what}. The terminal app may be busy or hung: try again shortly, and check it if this keeps happening.`
  )

/**
 * The one way to say another TermPilot process holds the session (it is typing there, or a command
 * it typed runs there): nothing was sent. `holder` says who (ClaimHolder.describeHolder).
 */
export const sessionClaimed = (sessionId: string, holder: string) =>
  fail(
    "session_claimed",
    `Session '${sessionId}' is held by ${holder}: another MCP client's TermPilot is typing there or running a command it typed. Only one TermPilot process types into a session at a time. Nothing was sent; try again once that command has ended.`
  )

/**
 * The one way to say a session hosts the MCP client TermPilot serves (TermPilot runs under a
 * program there, src/layers/backends/ClientHost.ts, or it is TermPilot's own tmux pane): nothing is
 * ever typed there. `what` is what would have been typed ("a command", "keys", "an interrupt").
 */
export const sessionHostsClient = (sessionId: string, what: string) =>
  fail(
    "session_hosts_client",
    `Session '${sessionId}' is the terminal the MCP client itself runs in (TermPilot runs under a program there: hosts_this_client is true), so ${what} typed there would go into the assistant's own input, never what the person wants. TermPilot never types there; nothing was sent. Use another session.`
  )
