/**
 * SendPhase — run_command's phase up to the send: the approval the policy asks for (ApprovalGate,
 * bounded by its own timeout), then watch the session (subscribe first) and submit, held to the
 * call deadline and the client's cancellation (CallBounds). It ends with a final result (nothing
 * sent, or maybe sent) or a live watch of the sent command.
 */
import { Cause, Clock, Effect, Exit, Option, type Queue, Result, type Scope } from "effect"
import type { CommandResult } from "../../services/CommandRunner.js"
import type { PromptEvent, PromptTracker } from "../../services/PromptTracker.js"
import type { Terminal } from "../../services/Terminal.js"
import { approvalGate } from "../approval/ApprovalGate.js"
import { boundedByCall } from "./CallBounds.js"
import { refusingClientHost } from "./ClientHostGuard.js"
import * as R from "./CommandResults.js"

/** What the send phase ended with: a final result (nothing or maybe sent), or a live watch. */
export type SendPhase =
  | { readonly _tag: "Final"; readonly result: CommandResult }
  | {
      readonly _tag: "Sent"
      readonly promptId: string | null
      /** Events numbered at or below this came before the command was typed (Submission.after). */
      readonly after: number | undefined
      readonly events: Queue.Dequeue<PromptEvent>
    }

/** The backend services the runner was built over. */
export interface Backend {
  readonly terminal: Terminal["Service"]
  readonly tracker: PromptTracker["Service"]
}

/** Stopped before the send (the submit's interruptible checks were cut short). */
type Phase = SendPhase | { readonly _tag: "Stopped" }

const final = (result: CommandResult): SendPhase => ({ _tag: "Final", result })

/**
 * Watch, then submit. Only the watch, and what a backend marks interruptible in `submit` before
 * its text may leave, can be cut short, so an interruption means nothing was sent.
 */
const watchThenSubmit = (ctx: R.RequestContext, backend: Backend): Effect.Effect<Phase, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { terminal, tracker } = backend
    const { sessionId, command } = ctx.request
    const watched = yield* Effect.result(Effect.interruptible(tracker.watch(sessionId)))
    if (Result.isFailure(watched)) {
      const e = watched.failure
      const status = R.REJECTED_CODES.has(e.code) ? "rejected" : "error"
      return final(R.notSent(ctx, status, e.code, e.message, yield* Clock.currentTimeMillis))
    }
    const submitted = yield* Effect.exit(terminal.submit(sessionId, command))
    if (Exit.isSuccess(submitted)) {
      return {
        _tag: "Sent",
        promptId: submitted.value.promptId,
        after: submitted.value.after,
        events: watched.success
      } as const
    }
    if (Exit.hasInterrupts(submitted)) return { _tag: "Stopped" } as const
    const now = yield* Clock.currentTimeMillis
    const failure = Cause.findErrorOption(submitted.cause)
    if (Option.isNone(failure)) {
      yield* Effect.logError("Terminal.submit died", submitted.cause)
      return final(R.maybeSent(ctx, "internal_error", "unexpected failure", now))
    }
    return final(R.submitFailure(ctx, failure.value, now))
  })

/** What the person is told run_command will do when they accept. */
export const RUN_EFFECT =
  "TermPilot checks again that the session is still at an empty shell prompt, then types this command there and presses Enter, once. A session that became busy meanwhile gets nothing."

/** Ask when the policy says so: anything but an accept ends the request, nothing sent. */
const approved = (ctx: R.RequestContext, backend: Backend) =>
  Effect.gen(function* () {
    const { sessionId, command } = ctx.request
    const verdict = yield* approvalGate(refusingClientHost(backend.terminal, "a command"), {
      action: { tool: "run_command", command },
      requestId: ctx.requestId,
      sessionId,
      label: "Command",
      shown: command,
      effect: RUN_EFFECT,
      needsReady: true
    })
    const now = yield* Clock.currentTimeMillis
    switch (verdict._tag) {
      case "Go":
        return Option.none()
      case "Cancelled":
        return Option.some(final(R.stoppedBeforeSend(ctx, "cancelled", now)))
      case "Refused": {
        const e = verdict.error
        const status = R.REJECTED_CODES.has(e.code) ? "rejected" : "error"
        return Option.some(final(R.notSent(ctx, status, e.code, e.message, now)))
      }
    }
  })

/**
 * The send phase: the approval (when needed), then watch + submit bounded by the call (see
 * CallBounds): stopped before the send, nothing was sent.
 */
export const sendPhase = (
  ctx: R.RequestContext,
  backend: Backend
): Effect.Effect<SendPhase, never, Scope.Scope> =>
  Effect.gen(function* () {
    const refusedByGate = yield* approved(ctx, backend)
    if (Option.isSome(refusedByGate)) return refusedByGate.value
    const { exit, stopped } = yield* boundedByCall(watchThenSubmit(ctx, backend), ctx.deadlineMs)
    const now = yield* Clock.currentTimeMillis
    if (Exit.isSuccess(exit) && exit.value._tag !== "Stopped") return exit.value
    if (Exit.isSuccess(exit) || Exit.hasInterrupts(exit)) {
      return final(R.stoppedBeforeSend(ctx, stopped ?? "deadline", now))
    }
    // Only the watch can die here (a failed submit is a result): nothing was sent.
    yield* Effect.logError("run_command send phase died", exit.cause)
    return final(R.notSent(ctx, "error", "internal_error", "unexpected failure", now))
  })
