/**
 * CommandRunnerLive — the backend-independent run_command protocol over Terminal and PromptTracker:
 * re-validate, claim the session (one command in flight), watch before sending, submit, then
 * correlate and read the bounded output in a background fiber owned by this layer's scope, so a
 * timed-out wait keeps being watched and get_command_result can pick the outcome up later. The
 * pre-send phase is held to the call deadline: past it, nothing is sent and the result says so.
 */
import { randomBytes } from "node:crypto"
import {
  Cause,
  Clock,
  Deferred,
  Duration,
  Effect,
  Exit,
  Fiber,
  FiberSet,
  HashMap,
  Layer,
  Option,
  type Queue,
  Ref,
  type Scope
} from "effect"
import { validateCommand, validateSessionId } from "../domain/CommandValidation.js"
import { type CommandResult, CommandRunner, type RunRequest } from "../services/CommandRunner.js"
import { deadlineExceeded, fail } from "../services/Errors.js"
import { type PromptEvent, PromptTracker } from "../services/PromptTracker.js"
import { Terminal } from "../services/Terminal.js"
import { currentToolSettings } from "../services/ToolSettings.js"
import { awaitNextPrompt, correlate, type Outcome } from "./CommandCorrelation.js"
import * as R from "./CommandResults.js"
import { makeResultRegistry, REGISTRY_CAPACITY } from "./ResultRegistry.js"

/** Line bound for a command's output (the prototype's fixed 2000). */
export const MAX_OUTPUT_LINES = 2000
/** How long a sent command is watched at most, whoever is waiting for it. */
export const MAX_WATCH_HOURS = 6

export interface CommandRunnerOptions {
  readonly registryCapacity?: number
  readonly maxWatchHours?: number
  /** How long to wait, after our command ended, for the shell to draw its next prompt. */
  readonly promptGraceMs?: number
}

/**
 * The shell draws its next prompt a moment after the command's end is reported. Waiting for it
 * (bounded) before answering means the session is `ready` again when the caller sees the result,
 * so an immediate next run_command is not refused as busy.
 */
export const PROMPT_GRACE_MS = 1000

const newRequestId = (): string => randomBytes(16).toString("hex")

const invalidNumbers = (request: RunRequest): string | undefined => {
  if (!Number.isFinite(request.timeoutSeconds) || request.timeoutSeconds <= 0) {
    return "timeout_seconds must be greater than 0"
  }
  if (!Number.isInteger(request.maxOutputChars) || request.maxOutputChars < 1) {
    return "max_output_chars must be an integer greater than 0"
  }
  return undefined
}

/** What the send phase ended with: a final result (nothing or maybe sent), or a live watch. */
type SendPhase =
  | { readonly _tag: "Final"; readonly result: CommandResult }
  | { readonly _tag: "Sent"; readonly promptId: string | null; readonly events: Queue.Dequeue<PromptEvent> }

export const makeCommandRunner = (options: CommandRunnerOptions = {}) =>
  Effect.gen(function* () {
    const terminal = yield* Terminal
    const tracker = yield* PromptTracker
    const registry = yield* makeResultRegistry(options.registryCapacity ?? REGISTRY_CAPACITY)
    const watchHours = options.maxWatchHours ?? MAX_WATCH_HOURS
    const fibers = yield* FiberSet.make<void, never>()
    /** session id → request id of our command in flight there. */
    const inFlight = yield* Ref.make(HashMap.empty<string, string>())

    const claim = (sessionId: string, requestId: string) =>
      Ref.modify(inFlight, (map): [Option.Option<string>, HashMap.HashMap<string, string>] => {
        const holder = HashMap.get(map, sessionId)
        return Option.isSome(holder) ? [holder, map] : [Option.none(), HashMap.set(map, sessionId, requestId)]
      })
    const release = (sessionId: string) => Ref.update(inFlight, HashMap.remove(sessionId))

    const pastDeadline = (ctx: R.RequestContext): Effect.Effect<SendPhase> =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const e = deadlineExceeded(ctx.deadlineMs, "nothing was sent")
        return { _tag: "Final", result: R.notSent(ctx, "error", e.code, e.message, now) } as const
      })

    /**
     * Watch (subscribe first), then submit. Run uninterruptibly (see boundedSendPhase): only the
     * watch, and what a backend marks interruptible in `submit` before its text may leave, can be cut
     * short, so an interruption means nothing was sent and a send is never left half-known.
     */
    const sendPhase = (ctx: R.RequestContext): Effect.Effect<SendPhase, never, Scope.Scope> =>
      Effect.gen(function* () {
        const { sessionId, command } = ctx.request
        const watched = yield* Effect.either(Effect.interruptible(tracker.watch(sessionId)))
        if (watched._tag === "Left") {
          const e = watched.left
          const status = R.REJECTED_CODES.has(e.code) ? "rejected" : "error"
          const now = yield* Clock.currentTimeMillis
          return { _tag: "Final", result: R.notSent(ctx, status, e.code, e.message, now) } as const
        }
        const submitted = yield* Effect.exit(terminal.submit(sessionId, command))
        if (Exit.isSuccess(submitted)) {
          return { _tag: "Sent", promptId: submitted.value.promptId, events: watched.right } as const
        }
        if (Exit.isInterrupted(submitted)) return yield* pastDeadline(ctx)
        const now = yield* Clock.currentTimeMillis
        const failure = Cause.failureOption(submitted.cause)
        if (Option.isNone(failure)) {
          yield* Effect.logError("Terminal.submit died", submitted.cause)
          return {
            _tag: "Final",
            result: R.maybeSent(ctx, "internal_error", "unexpected failure", now)
          } as const
        }
        return { _tag: "Final", result: R.submitFailure(ctx, failure.value, now) } as const
      })

    /**
     * The send phase in its own fiber, forked uninterruptible (so its end never turns into an
     * interruption and a finished send is never lost). At the deadline it is interrupted and its exit
     * awaited: its interruptible parts stop at once, a send already under way finishes and stands.
     */
    const boundedSendPhase = (ctx: R.RequestContext): Effect.Effect<SendPhase, never, Scope.Scope> =>
      Effect.uninterruptible(
        Effect.gen(function* () {
          const fiber = yield* Effect.fork(sendPhase(ctx))
          const early = yield* Effect.interruptible(Fiber.await(fiber)).pipe(
            Effect.timeoutOption(Duration.millis(ctx.deadlineMs))
          )
          const exit = Option.isSome(early) ? early.value : yield* Fiber.interrupt(fiber)
          if (Exit.isSuccess(exit)) return exit.value
          if (Exit.isInterrupted(exit)) return yield* pastDeadline(ctx)
          // Only the watch can die here (a failed submit is a result): nothing was sent.
          yield* Effect.logError("run_command send phase died", exit.cause)
          const now = yield* Clock.currentTimeMillis
          const result = R.notSent(ctx, "error", "internal_error", "unexpected failure", now)
          return { _tag: "Final", result } as const
        })
      )

    /** The final result for an outcome, reading the command's own bounded output when it ended. */
    const conclude = (ctx: R.RequestContext, outcome: Option.Option<Outcome>) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const sessionId = ctx.request.sessionId
        if (Option.isNone(outcome)) return R.watchExpired(ctx, watchHours, now)
        const o = outcome.value
        switch (o._tag) {
          case "Ended": {
            if (o.promptId === null) {
              const message = `The command ended with exit status ${o.exitCode}, but the terminal did not identify its prompt, so its output cannot be read.`
              return R.sentError(ctx, "output_unavailable", message, now, o.exitCode)
            }
            const bounds = { maxLines: MAX_OUTPUT_LINES, maxChars: ctx.request.maxOutputChars }
            const output = yield* Effect.either(terminal.commandOutput(sessionId, o.promptId, bounds))
            if (output._tag === "Right") return R.completed(ctx, o.exitCode, output.right, now)
            const message = `The command ended with exit status ${o.exitCode}, but its output is unavailable: ${output.left.message}`
            return R.sentError(ctx, "output_unavailable", message, now, o.exitCode)
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

    /** The whole life of one claimed request, run in the layer's FiberSet. */
    const job = (
      ctx: R.RequestContext,
      afterSend: Deferred.Deferred<CommandResult>,
      done: Deferred.Deferred<CommandResult>
    ) => {
      let sent = false
      const watched = Effect.scoped(
        Effect.gen(function* () {
          const phase = yield* boundedSendPhase(ctx)
          if (phase._tag === "Final") return { result: phase.result, recorded: false }
          sent = true
          const snapshot = R.submitted(ctx)
          yield* registry.record(snapshot, done)
          yield* Deferred.succeed(afterSend, snapshot)
          const outcome = yield* correlate(phase.events, phase.promptId).pipe(
            Effect.timeoutOption(Duration.hours(watchHours))
          )
          if (Option.isSome(outcome) && outcome.value._tag === "Ended") {
            yield* awaitNextPrompt(phase.events).pipe(
              Effect.timeoutOption(Duration.millis(options.promptGraceMs ?? PROMPT_GRACE_MS))
            )
          }
          return { result: yield* conclude(ctx, outcome), recorded: true }
        })
      )
      return Effect.gen(function* () {
        const { result, recorded } = yield* watched
        // Order matters: the session is free and the registry final before anyone is told.
        yield* release(ctx.request.sessionId)
        yield* recorded ? registry.finish(result) : registry.record(result)
        yield* Deferred.succeed(afterSend, result)
        yield* Deferred.succeed(done, result)
      }).pipe(
        Effect.onExit((exit) => {
          if (Exit.isSuccess(exit)) return Effect.void
          return Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            const message = Exit.isInterrupted(exit)
              ? "TermPilot stopped watching this command because it is shutting down; the command may still be running."
              : "TermPilot failed while watching this command; the command may still be running."
            const result = sent
              ? R.sentError(ctx, "internal_error", message, now)
              : R.notSent(ctx, "error", "internal_error", message, now)
            if (!Exit.isInterrupted(exit)) yield* Effect.logError("command watch died", exit.cause)
            yield* release(ctx.request.sessionId)
            yield* registry.record(result)
            yield* Deferred.succeed(afterSend, result)
            yield* Deferred.succeed(done, result)
          })
        })
      )
    }

    const run = Effect.fn("CommandRunner.run")(function* (request: RunRequest) {
      const invalid =
        validateSessionId(request.sessionId) ?? validateCommand(request.command) ?? invalidNumbers(request)
      if (invalid !== undefined) return yield* fail("invalid_request", invalid)
      const ctx: R.RequestContext = {
        request,
        requestId: newRequestId(),
        startedMs: yield* Clock.currentTimeMillis,
        deadlineMs: (yield* currentToolSettings).deadlineMs
      }
      const afterSend = yield* Deferred.make<CommandResult>()
      const done = yield* Deferred.make<CommandResult>()
      const holder = yield* Effect.uninterruptible(
        Effect.gen(function* () {
          const current = yield* claim(request.sessionId, ctx.requestId)
          if (Option.isNone(current))
            yield* FiberSet.run(fibers, Effect.interruptible(job(ctx, afterSend, done)))
          return current
        })
      )
      if (Option.isSome(holder)) {
        const message = `Another command sent by TermPilot (request_id ${holder.value}) is still in flight in session '${request.sessionId}'; one command runs at a time per session. Use get_command_result with that request_id to wait for it.`
        const result = R.notSent(
          ctx,
          "rejected",
          "command_in_flight",
          message,
          yield* Clock.currentTimeMillis
        )
        yield* registry.record(result)
        return result
      }
      const sendResult = yield* Deferred.await(afterSend)
      if (sendResult.status !== "submitted" || !request.waitForCompletion) return sendResult
      const finished = yield* Deferred.await(done).pipe(
        Effect.timeoutOption(Duration.millis(request.timeoutSeconds * 1000))
      )
      if (Option.isSome(finished)) return finished.value
      return yield* registry.waitExpired(R.timedOut(ctx))
    })

    const result = (requestId: string, waitSeconds: number) => registry.lookup(requestId, waitSeconds)

    // Interface stub until the backend implements it (issue 10, this session).
    const interrupt = (_requestId: string, _waitSeconds: number) =>
      Effect.fail(fail("command_not_running", "not implemented yet"))

    return CommandRunner.of({ run, result, interrupt })
  })

/** The runner with the documented bounds (256 results kept, 6-hour watch). Needs Terminal and PromptTracker. */
export const CommandRunnerLive: Layer.Layer<CommandRunner, never, Terminal | PromptTracker> = Layer.scoped(
  CommandRunner,
  makeCommandRunner()
)
