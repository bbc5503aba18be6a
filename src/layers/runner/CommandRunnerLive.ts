/**
 * CommandRunnerLive — the backend-independent run_command protocol over Terminal and PromptTracker:
 * re-validate, claim the session (one command in flight), then run the request's job in a fiber
 * owned by this layer's scope (CommandWatch: bounded send phase, correlation, bounded output), so a
 * timed-out or cancelled wait keeps being watched and get_command_result can pick the outcome up
 * later; get_command_result's and interrupt_command's protocols over the same view, and send_keys'
 * (SendKeysFlow.ts) and wait_for_output's (OutputWait.ts) over the same Terminal and PromptTracker;
 * which request typed at a prompt (PromptRequests.ts) for list_commands.
 */
import { randomBytes } from "node:crypto"
import { Clock, Deferred, Effect, FiberSet, Layer, Option } from "effect"
import { validateCommand, validateSessionId } from "../../domain/CommandValidation.js"
import { waitForCommand } from "../../services/CallWaits.js"
import {
  type CommandResult,
  CommandRunner,
  MAX_OUTPUT_LINES,
  type RunRequest
} from "../../services/CommandRunner.js"
import { fail } from "../../services/Errors.js"
import { PromptTracker } from "../../services/PromptTracker.js"
import { Terminal } from "../../services/Terminal.js"
import { currentToolSettings } from "../../services/ToolSettings.js"
import { makeInterrupt } from "./CommandInterrupt.js"
import * as R from "./CommandResults.js"
import { watchRequest } from "./CommandWatch.js"
import { makeInFlightRequests } from "./InFlightRequests.js"
import { makeOutputSoFar } from "./OutputSoFar.js"
import { waitForOutput } from "./OutputWait.js"
import { makePromptRequests } from "./PromptRequests.js"
import { makeResultRegistry, REGISTRY_CAPACITY } from "./ResultRegistry.js"
import { sendKeys } from "./SendKeysFlow.js"

export { MAX_OUTPUT_LINES }

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
  if (
    !Number.isInteger(request.maxOutputLines) ||
    request.maxOutputLines < 1 ||
    request.maxOutputLines > MAX_OUTPUT_LINES
  ) {
    return `max_output_lines must be an integer from 1 to ${MAX_OUTPUT_LINES}`
  }
  return undefined
}

export const makeCommandRunner = (options: CommandRunnerOptions = {}) =>
  Effect.gen(function* () {
    const terminal = yield* Terminal
    const tracker = yield* PromptTracker
    const registry = yield* makeResultRegistry(options.registryCapacity ?? REGISTRY_CAPACITY)
    const inFlight = yield* makeInFlightRequests
    const prompts = yield* makePromptRequests(options.registryCapacity ?? REGISTRY_CAPACITY)
    const output = makeOutputSoFar(terminal, registry, inFlight)
    const fibers = yield* FiberSet.make<void, never>()
    const parts = {
      backend: { terminal, tracker },
      registry,
      inFlight,
      prompts,
      watchHours: options.maxWatchHours ?? MAX_WATCH_HOURS,
      promptGraceMs: options.promptGraceMs ?? PROMPT_GRACE_MS
    }

    /** Wait (progress, cancel) up to `timeoutMs` for a pending request's final result. */
    const awaitDone = (requestId: string, done: Deferred.Deferred<CommandResult>, timeoutMs: number) =>
      waitForCommand({
        requestId,
        until: Deferred.await(done),
        timeoutMs,
        outputLines: output.lineCount(requestId)
      })

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
          const current = yield* inFlight.claim(ctx)
          if (Option.isNone(current)) {
            yield* FiberSet.run(fibers, Effect.interruptible(watchRequest(parts, ctx, afterSend, done)))
          }
          return current
        })
      )
      if (Option.isSome(holder)) {
        const message = `Another command sent by TermPilot (request_id ${holder.value}) is still in flight in session '${request.sessionId}'; one command runs at a time per session. Use get_command_result with that request_id to wait for it.`
        const now = yield* Clock.currentTimeMillis
        const result = R.notSent(ctx, "rejected", "command_in_flight", message, now)
        yield* registry.record(result)
        return result
      }
      // The job's send phase answers by the deadline, or at once when the client cancels.
      const sendResult = yield* Deferred.await(afterSend)
      if (sendResult.status !== "submitted" || !request.waitForCompletion) return sendResult
      const end = yield* awaitDone(ctx.requestId, done, request.timeoutSeconds * 1000)
      switch (end._tag) {
        case "Done":
          return end.value
        case "TimedOut":
          return yield* registry.waitExpired(R.timedOut(ctx))
        case "Cancelled": {
          const current = yield* output.current(ctx.requestId, sendResult)
          return current.final ? current.result : R.waitCancelled(ctx)
        }
      }
    })

    const result = Effect.fn("CommandRunner.result")(function* (requestId: string, waitSeconds: number) {
      if (!Number.isFinite(waitSeconds) || waitSeconds < 0) {
        return yield* fail("invalid_request", "wait_seconds must be a number of seconds, 0 or more")
      }
      const entry = yield* registry.get(requestId)
      if (entry.done === null) return entry.result
      if (waitSeconds > 0) {
        const end = yield* awaitDone(requestId, entry.done, waitSeconds * 1000)
        if (end._tag === "Done") return end.value
      }
      return (yield* output.current(requestId, entry.result)).result
    })

    const interrupt = makeInterrupt({ terminal, registry, inFlight, output })

    return CommandRunner.of({
      run,
      result,
      interrupt,
      sendKeys: (sessionId, keys) => sendKeys(terminal, sessionId, keys),
      waitForOutput: (spec) => waitForOutput(parts.backend, spec),
      requestAt: prompts.requestAt
    })
  })

/** The runner with the documented bounds (256 results kept, 6-hour watch). Needs Terminal and PromptTracker. */
export const CommandRunnerLive: Layer.Layer<CommandRunner, never, Terminal | PromptTracker> = Layer.effect(
  CommandRunner,
  makeCommandRunner()
)
