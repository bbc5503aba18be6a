/**
 * Approval — `Terminal.askApproval` over iTerm2: iTerm2's own modal alert, attached to the window
 * that holds the session (`iterm2.alert` through an InvokeFunctionRequest in the app's context, as
 * iTerm2's Python library calls it), with the buttons "Decline" (first: Return presses it) and
 * "Allow once". iTerm2 answers with the pressed button's index plus 1000. The answer travels on
 * TermPilot's own authenticated API connection, as the reply to its own request: nothing a pane
 * prints or a command can read reaches it. No API closes an alert: when the wait is interrupted
 * (the approval timeout, the call cancelled) the reply is no longer awaited, so a later click
 * answers nothing, but the alert stays until the person dismisses it.
 */
import { Effect } from "effect"
import { MAX_APPROVAL_TIMEOUT_SECONDS } from "../../../domain/ApprovalPolicy.js"
import { askedBy } from "../../../domain/ApprovalPrompt.js"
import { fail, type TermPilotError } from "../../../services/Errors.js"
import type {
  SessionInfo,
  TerminalApprovalAnswer,
  TerminalApprovalRequest
} from "../../../services/Terminal.js"
import { replyField } from "./Calls.js"
import type { Iterm2Connection } from "./ConnectionService.js"

/** The buttons, in order: iTerm2 answers 1000 for the first, 1001 for the second. */
export const ALERT_BUTTONS = ["Decline", "Allow once"] as const
const ALLOW = 1001
const DECLINE = 1000

/** iTerm2 never ends the wait before TermPilot's approval timeout does. */
const ALERT_TIMEOUT_SECONDS = MAX_APPROVAL_TIMEOUT_SECONDS + 60

/** A string literal of iTerm2's expression language: JSON, everything outside ASCII as `\uXXXX` (as Python's json.dumps). */
export const iterm2String = (text: string): string =>
  JSON.stringify(text).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  )

/** The `iterm2.alert(…)` invocation. */
export const alertInvocation = (title: string, subtitle: string, windowId: string): string =>
  `iterm2.alert(title: ${iterm2String(title)}, subtitle: ${iterm2String(subtitle)}, buttons: [${ALERT_BUTTONS.map(iterm2String).join(", ")}], window_id: ${iterm2String(windowId)})`

const unavailable = (sessionId: string, why: string): TermPilotError =>
  fail("approval_unavailable", `TermPilot cannot ask in iTerm2 for session '${sessionId}': ${why}.`)

export const makeIterm2Approval =
  (
    conn: Iterm2Connection["Service"],
    getSession: (id: string) => Effect.Effect<SessionInfo, TermPilotError>
  ) =>
  (
    sessionId: string,
    request: TerminalApprovalRequest
  ): Effect.Effect<TerminalApprovalAnswer, TermPilotError> =>
    Effect.gen(function* () {
      const session = yield* getSession(sessionId)
      const windowId = session.window_id
      if (windowId === null) return yield* unavailable(sessionId, "no iTerm2 window shows it")
      const subtitle = `${askedBy(request.asker)}\n\n${request.message}\n\nAllow once: send it once. Decline: nothing is sent.`
      const invocation = alertInvocation("TermPilot asks for your approval", subtitle, windowId)
      // The connection's own request timeout must not end the wait first: the gate's timeout does.
      const reply = yield* replyField(
        conn.call(
          { invoke_function_request: { app: {}, invocation, timeout: ALERT_TIMEOUT_SECONDS } },
          { timeoutMs: ALERT_TIMEOUT_SECONDS * 1000 }
        ),
        "invoke_function_response"
      ).pipe(Effect.mapError((e) => unavailable(sessionId, e.message)))
      if (reply.error !== undefined)
        return yield* unavailable(
          sessionId,
          `iTerm2 could not show the alert (${reply.error.status ?? "FAILED"}${reply.error.error_reason ? `: ${reply.error.error_reason}` : ""})`
        )
      const pressed = Number(reply.success?.json_result)
      const answeredBy = `iTerm2 alert in window ${windowId}`
      if (pressed === ALLOW) return { answer: "accept" as const, answeredBy }
      if (pressed === DECLINE) return { answer: "decline" as const, answeredBy }
      return yield* unavailable(
        sessionId,
        `iTerm2's alert answered ${JSON.stringify(reply.success?.json_result)}`
      )
    }).pipe(Effect.withSpan("Iterm2Terminal.askApproval"))
