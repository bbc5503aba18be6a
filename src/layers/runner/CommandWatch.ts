/**
 * CommandWatch — the whole life of one claimed run_command request, run in the runner's FiberSet:
 * the bounded send phase, then (once sent) the watch that correlates the session's events, waits
 * briefly for the next prompt and reads the command's bounded output. It keeps the runner's view
 * of the request (InFlightRequests), the registry and the prompt it typed at (PromptRequests)
 * current, and frees the session at the end.
 */
import { Clock, Deferred, Duration, Effect, Exit, Option, Result } from "effect"
import type { CommandResult } from "../../services/CommandRunner.js"
import { awaitNextPrompt, correlate, type Outcome } from "./CommandCorrelation.js"
import * as R from "./CommandResults.js"
import type { InFlightRequests } from "./InFlightRequests.js"
import { outputLinesOf } from "./OutputSoFar.js"
import type { PromptRequests } from "./PromptRequests.js"
import type { ResultRegistry } from "./ResultRegistry.js"
import { type Backend, sendPhase } from "./SendPhase.js"

/** What the watch of a request works with. */
export interface WatchParts {
  readonly backend: Backend
  readonly registry: ResultRegistry
  readonly inFlight: InFlightRequests
  /** Which request typed at which prompt (list_commands' `ran_by`). */
  readonly prompts: PromptRequests
  /** How long a sent command is watched at most. */
  readonly watchHours: number
  /** How long to wait, after our command ended, for the shell to draw its next prompt. */
  readonly promptGraceMs: number
}

/** The final result for an outcome, reading the command's own bounded output when it ended. */
const conclude = (parts: WatchParts, ctx: R.RequestContext, outcome: Option.Option<Outcome>) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const sessionId = ctx.request.sessionId
    if (Option.isNone(outcome)) return R.watchExpired(ctx, parts.watchHours, now)
    const o = outcome.value
    switch (o._tag) {
      case "Ended": {
        if (o.promptId === null) {
          const message = `The command ended with exit status ${o.exitCode}, but the terminal did not identify its prompt, so its output cannot be read.`
          return R.sentError(ctx, "output_unavailable", message, now, o.exitCode)
        }
        const bounds = { maxLines: outputLinesOf(ctx.request), maxChars: ctx.request.maxOutputChars }
        const output = yield* Effect.result(
          parts.backend.terminal.commandOutput(sessionId, o.promptId, bounds)
        )
        if (Result.isSuccess(output)) return R.completed(ctx, o.exitCode, output.success, now)
        const message = `The command ended with exit status ${o.exitCode}, but its output is unavailable: ${output.failure.message}`
        return R.sentError(ctx, "output_unavailable", message, now, o.exitCode)
      }
      case "ShellGone": {
        const bounds = { maxLines: outputLinesOf(ctx.request), maxChars: ctx.request.maxOutputChars }
        const output =
          o.promptId === null
            ? null
            : Option.getOrNull(
                Result.getSuccess(
                  yield* Effect.result(parts.backend.terminal.commandOutput(sessionId, o.promptId, bounds))
                )
              )
        return R.shellGone(ctx, o.transportExitCode, output, now)
      }
      case "Aborted":
        return R.aborted(ctx, now)
      case "Foreign":
        return R.sentError(
          ctx,
          "command_unattributed",
          `The command was sent to session '${sessionId}', but ${o.detail}; its exit status and output cannot be attributed to it. Read the terminal before doing anything else there.`,
          now
        )
      case "SessionEnded":
        return R.sessionLost(ctx, now)
      case "Lost":
        return R.sentError(
          ctx,
          o.code,
          `Lost the connection to the terminal while waiting (${o.message}); the command may still be running. Read the terminal once it is reachable again.`,
          now
        )
    }
  })

/**
 * The job of one claimed request. `afterSend` gets the first answer (the submitted snapshot, or the
 * final result when nothing was sent), `done` the final result.
 */
export const watchRequest = (
  parts: WatchParts,
  ctx: R.RequestContext,
  afterSend: Deferred.Deferred<CommandResult>,
  done: Deferred.Deferred<CommandResult>
) => {
  const { registry, inFlight } = parts
  let sent = false
  const watched = Effect.scoped(
    Effect.gen(function* () {
      const phase = yield* sendPhase(ctx, parts.backend)
      if (phase._tag === "Final") return { result: phase.result, recorded: false }
      sent = true
      yield* inFlight.markSent(ctx, phase.promptId, phase.events)
      if (phase.promptId !== null)
        yield* parts.prompts.remember(ctx.request.sessionId, phase.promptId, ctx.requestId)
      const snapshot = R.submitted(ctx)
      yield* registry.record(snapshot, done)
      yield* Deferred.succeed(afterSend, snapshot)
      const outcome = yield* correlate(
        phase.events,
        phase.promptId,
        inFlight.markStarted(ctx),
        phase.after
      ).pipe(Effect.timeoutOption(Duration.hours(parts.watchHours)))
      yield* inFlight.markEnded(ctx)
      if (Option.isSome(outcome) && (outcome.value._tag === "Ended" || outcome.value._tag === "ShellGone")) {
        yield* awaitNextPrompt(phase.events).pipe(Effect.timeoutOption(Duration.millis(parts.promptGraceMs)))
      }
      return { result: yield* conclude(parts, ctx, outcome), recorded: true }
    })
  )
  return Effect.gen(function* () {
    const { result, recorded } = yield* watched
    // Order matters: the session is free and the registry final before anyone is told.
    yield* inFlight.release(ctx)
    yield* recorded ? registry.finish(result) : registry.record(result)
    yield* Deferred.succeed(afterSend, result)
    yield* Deferred.succeed(done, result)
  }).pipe(
    Effect.onExit((exit) => {
      if (Exit.isSuccess(exit)) return Effect.void
      return Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const message = Exit.hasInterrupts(exit)
          ? "TermPilot stopped watching this command because it is shutting down; the command may still be running."
          : "TermPilot failed while watching this command; the command may still be running."
        const result = sent
          ? R.sentError(ctx, "internal_error", message, now)
          : R.notSent(ctx, "error", "internal_error", message, now)
        if (!Exit.hasInterrupts(exit)) yield* Effect.logError("command watch died", exit.cause)
        yield* inFlight.release(ctx)
        yield* registry.record(result)
        yield* Deferred.succeed(afterSend, result)
        yield* Deferred.succeed(done, result)
      })
    })
  )
}
