/**
 * SendKeysFlow — send_keys' protocol: validate, ask the person (ApprovalGate; mandatory unless the
 * unsafe config key says otherwise), then, held to the call deadline and the client's cancel
 * (CallBounds), note where the session's output stands (the position the tool returns as a
 * read_terminal `since` cursor) and type the keys through the backend, which refuses a target
 * whose keys would go elsewhere. Nothing is typed before an accept; a send that may have left is
 * reported as such.
 */
import { randomBytes } from "node:crypto"
import { Cause, Effect, Exit, Option } from "effect"
import { validateSessionId } from "../../domain/CommandValidation.js"
import { type KeyItem, keyBytes, readableKeys, validateKeys } from "../../domain/Keys.js"
import type { KeysSent } from "../../services/CommandRunner.js"
import { deadlineExceeded, type ErrorCode, fail, type TermPilotError } from "../../services/Errors.js"
import type { Terminal } from "../../services/Terminal.js"
import { currentToolSettings } from "../../services/ToolSettings.js"
import { approvalGate } from "../approval/ApprovalGate.js"
import { boundedByCall } from "./CallBounds.js"
import { refusingClientHost } from "./ClientHostGuard.js"

export const KEYS_EFFECT =
  "TermPilot types these keys into that session as they are, once, whatever program is running there (a busy shell, a pager, a prompt); no Enter is added unless Enter is listed."

const cancelled = fail(
  "request_cancelled",
  "The client cancelled the call before the keys were sent; nothing was sent."
)

const maybeSent = (e: { readonly code: ErrorCode; readonly message: string }, sessionId: string) =>
  fail(
    e.code,
    `Sending the keys to session '${sessionId}' failed partway (${e.message}); some of them may have been typed. Read the terminal before doing anything else.`
  )

/** send_keys over the runner's Terminal (CommandRunner.sendKeys). */
export const sendKeys = (
  terminal: Terminal["Service"],
  sessionId: string,
  items: ReadonlyArray<KeyItem>
): Effect.Effect<KeysSent, TermPilotError> =>
  Effect.gen(function* () {
    const invalid = validateSessionId(sessionId) ?? validateKeys(items)
    if (invalid !== undefined) return yield* fail("invalid_request", invalid)
    const requestId = randomBytes(16).toString("hex")
    const keys = readableKeys(items)
    const verdict = yield* approvalGate(refusingClientHost(terminal, "keys"), {
      action: { tool: "send_keys" },
      requestId,
      sessionId,
      label: "Keys",
      shown: keys,
      effect: KEYS_EFFECT,
      needsReady: false
    })
    if (verdict._tag === "Cancelled") return yield* cancelled
    if (verdict._tag === "Refused") return yield* verdict.error

    const { deadlineMs } = yield* currentToolSettings
    const send = Effect.gen(function* () {
      const before = yield* Effect.interruptible(terminal.read(sessionId, { maxLines: 1, maxChars: 1 }))
      yield* terminal.sendKeys(sessionId, keyBytes(items))
      return before.cursor
    })
    const { exit, stopped } = yield* boundedByCall(send, deadlineMs)
    if (Exit.isSuccess(exit)) {
      return { request_id: requestId, session_id: sessionId, keys, sent: true, cursor: exit.value }
    }
    if (Exit.hasInterrupts(exit)) {
      return yield* stopped === "cancelled" ? cancelled : deadlineExceeded(deadlineMs, "nothing was sent")
    }
    const failure = Cause.findErrorOption(exit.cause)
    if (Option.isNone(failure)) {
      yield* Effect.logError("send_keys died", exit.cause)
      return yield* maybeSent(fail("internal_error", "unexpected failure"), sessionId)
    }
    const e = failure.value
    return yield* e._tag === "SendOutcomeUnknown" ? maybeSent(e, sessionId) : e
  })
