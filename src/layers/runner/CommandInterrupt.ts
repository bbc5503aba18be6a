/**
 * CommandInterrupt — interrupt_command's protocol: act only on a command TermPilot sent that the
 * watch saw start and not end, ask the person when the approval policy says so (ApprovalGate), let the backend re-verify and send one ETX atomically (held to the
 * call deadline and the client's cancellation, like run_command's send phase), then wait a bounded
 * time for the shell's own final result. Never escalates, never retries.
 */
import { Cause, Deferred, Effect, Exit, Option } from "effect"
import { waitForCommand } from "../../services/CallWaits.js"
import type { CommandResult, InterruptResult } from "../../services/CommandRunner.js"
import {
  deadlineExceeded,
  fail,
  outcomeUnknown,
  type SendError,
  type TermPilotError
} from "../../services/Errors.js"
import type { Terminal } from "../../services/Terminal.js"
import { currentToolSettings } from "../../services/ToolSettings.js"
import { approvalGate } from "../approval/ApprovalGate.js"
import { boundedByCall } from "./CallBounds.js"
import { refusingClientHost } from "./ClientHostGuard.js"
import { type InFlightRequests, mayHaveStarted } from "./InFlightRequests.js"
import * as I from "./InterruptResults.js"
import type { OutputSoFar } from "./OutputSoFar.js"
import type { ResultRegistry } from "./ResultRegistry.js"

export interface InterruptParts {
  readonly terminal: Terminal["Service"]
  readonly registry: ResultRegistry
  readonly inFlight: InFlightRequests
  readonly output: OutputSoFar
}

const notStarted = (requestId: string, sessionId: string) =>
  fail(
    "command_not_running",
    `The command of request_id ${requestId} was sent to session '${sessionId}' but has not started running (the shell has not reported its start); nothing was sent. Use get_command_result to follow it.`
  )

const unverifiable = (requestId: string, sessionId: string) =>
  fail(
    "command_not_running",
    `The terminal did not identify the prompt the command of request_id ${requestId} was typed at in session '${sessionId}', so TermPilot cannot verify what is running there; nothing was sent.`
  )

const cancelledBeforeInterrupt = fail(
  "request_cancelled",
  "The client cancelled the call before the interrupt was sent; nothing was sent."
)

/** A failed check+send: nothing sent, unless it is a `SendOutcomeUnknown` (the ETX may have left). */
const sendFailure = (e: SendError, sessionId: string, requestId: string): TermPilotError =>
  e._tag === "SendOutcomeUnknown"
    ? fail(
        e.code,
        `Sending the interrupt to session '${sessionId}' failed partway (${e.message}); the interrupt (one ETX) may have been sent. Read the terminal or use get_command_result with request_id ${requestId} before doing anything else.`
      )
    : e

export const makeInterrupt = (parts: InterruptParts) => {
  const { terminal, registry, inFlight, output } = parts

  /** Wait up to `waitSeconds` for the final result; what stands when the wait ends otherwise. */
  const awaitFinal = (
    requestId: string,
    done: Deferred.Deferred<CommandResult>,
    snapshot: CommandResult,
    waitSeconds: number
  ) =>
    Effect.gen(function* () {
      const end = yield* waitForCommand({
        requestId,
        until: Deferred.await(done),
        timeoutMs: waitSeconds * 1000,
        outputLines: output.lineCount(requestId)
      })
      if (end._tag === "Done") return { result: end.value, final: true, cancelled: false }
      const current = yield* output.current(requestId, snapshot)
      return { ...current, cancelled: end._tag === "Cancelled" }
    })

  return Effect.fn("CommandRunner.interrupt")(function* (requestId: string, waitSeconds: number) {
    if (!Number.isFinite(waitSeconds) || waitSeconds < 0 || waitSeconds > I.MAX_INTERRUPT_WAIT_SECONDS) {
      return yield* fail(
        "invalid_request",
        `wait_seconds must be a number of seconds from 0 to ${I.MAX_INTERRUPT_WAIT_SECONDS}`
      )
    }
    const entry = yield* registry.get(requestId)
    if (entry.done === null) return I.nothingSent(entry.result)
    const done = entry.done
    const notRunning = Effect.map(
      awaitFinal(requestId, done, entry.result, waitSeconds),
      (r): InterruptResult => (r.final ? I.nothingSent(r.result) : I.endedUnrecorded(r.result))
    )
    const live = yield* inFlight.byRequest(requestId)
    // Not held any more (finishing now), or the watch already decided the outcome.
    if (Option.isNone(live) || live.value.ended) return yield* notRunning
    const { ctx, promptId } = live.value
    const sessionId = ctx.request.sessionId
    if (promptId === null) return yield* unverifiable(requestId, sessionId)
    if (!(yield* mayHaveStarted(live.value))) return yield* notStarted(requestId, sessionId)

    const verdict = yield* approvalGate(refusingClientHost(terminal, "an interrupt"), {
      action: { tool: "interrupt_command", command: ctx.request.command },
      requestId,
      sessionId,
      label: "Interrupt (one Ctrl-C) of the command",
      shown: ctx.request.command,
      effect: `TermPilot checks again that this command, which it started (request_id ${requestId}), is still running there, then sends one Ctrl-C (ETX) to that session only; nothing else, no retry.`,
      needsReady: false
    })
    if (verdict._tag === "Cancelled") return yield* cancelledBeforeInterrupt
    if (verdict._tag === "Refused") return yield* verdict.error
    const { deadlineMs } = yield* currentToolSettings
    const { exit, stopped } = yield* boundedByCall(terminal.interrupt(sessionId, promptId), deadlineMs)
    if (Exit.isFailure(exit)) {
      if (Exit.hasInterrupts(exit)) {
        return yield* stopped === "cancelled"
          ? cancelledBeforeInterrupt
          : deadlineExceeded(deadlineMs, "no interrupt was sent")
      }
      const failure = Cause.findErrorOption(exit.cause)
      if (Option.isSome(failure)) return yield* sendFailure(failure.value, sessionId, requestId)
      yield* Effect.logError("Terminal.interrupt died", exit.cause)
      return yield* sendFailure(outcomeUnknown("internal_error", "unexpected failure"), sessionId, requestId)
    }
    switch (exit.value) {
      case "not_started":
        return yield* notStarted(requestId, sessionId)
      case "ended":
        return yield* notRunning
      case "sent": {
        const after = yield* awaitFinal(requestId, done, entry.result, waitSeconds)
        return after.final
          ? I.afterInterrupt(after.result)
          : I.stillRunning(after.result, waitSeconds, after.cancelled)
      }
    }
  })
}
