/**
 * The call deadline over run_command's pre-send phase (TestClock): a watch or a readiness check that
 * hangs ends at the deadline with `deadline_exceeded` (or, when the client cancels, with
 * `request_cancelled`), status error, sent false and nothing typed; a send already under way is
 * never abandoned and is reported as sent.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Queue, Ref } from "effect"
import { TestClock } from "effect/testing"
import { makeCommandRunner } from "../../src/layers/runner/CommandRunnerLive.js"
import { CallControl } from "../../src/services/CallControl.js"
import { CommandRunner } from "../../src/services/CommandRunner.js"
import { type PromptEvent, PromptTracker } from "../../src/services/PromptTracker.js"
import { Terminal } from "../../src/services/Terminal.js"
import { ToolSettings } from "../../src/services/ToolSettings.js"
import { type FakeCall, makeCall, request } from "./support.js"

const DEADLINE_MS = 2_000

interface Backend {
  /** Stands for the backend's pre-send check (interruptible by the backend's choice). */
  readonly check: Effect.Effect<void>
  /** Stands for the wait for the send's reply, after the text left. */
  readonly afterSend: Effect.Effect<void>
  readonly watch: Effect.Effect<void>
}

const runWith = (backend: Backend, call?: FakeCall) =>
  Effect.gen(function* () {
    const typed = yield* Ref.make<ReadonlyArray<string>>([])
    const terminal = Layer.mock(Terminal, {
      submit: (_sessionId, command) =>
        Effect.gen(function* () {
          yield* Effect.interruptible(backend.check)
          yield* Ref.update(typed, (t) => [...t, command])
          yield* backend.afterSend
          return { promptId: "p1" }
        })
    })
    const tracker = Layer.mock(PromptTracker, {
      watch: () => Effect.andThen(backend.watch, Queue.unbounded<PromptEvent>())
    })
    const runner = Layer.effect(CommandRunner, makeCommandRunner({ promptGraceMs: 0 })).pipe(
      Layer.provide(Layer.merge(terminal, tracker))
    )
    const fiber = yield* Effect.forkChild(
      Effect.flatMap(CommandRunner, (r) =>
        r.run(request("s1", "echo hi", { waitForCompletion: false }))
      ).pipe(
        Effect.provide(runner),
        Effect.provideService(ToolSettings, { redactSecrets: true, deadlineMs: DEADLINE_MS }),
        (self) => (call === undefined ? self : Effect.provideService(self, CallControl, call.control))
      )
    )
    return { fiber, typed }
  })

describe("CommandRunner: the pre-send phase is held to the call deadline", () => {
  it.effect(
    "a readiness check that never answers ends at the deadline: error, sent false, nothing typed",
    () =>
      Effect.gen(function* () {
        const { fiber, typed } = yield* runWith({
          check: Effect.never,
          afterSend: Effect.void,
          watch: Effect.void
        })
        yield* TestClock.adjust(DEADLINE_MS - 1)
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust(1)
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({ status: "error", sent: false, error_code: "deadline_exceeded" })
        expect(result.message).toMatch(/nothing was sent/)
        expect(yield* Ref.get(typed)).toEqual([])
      })
  )

  it.effect("a watch that never subscribes ends at the deadline with nothing typed", () =>
    Effect.gen(function* () {
      const { fiber, typed } = yield* runWith({
        check: Effect.void,
        afterSend: Effect.void,
        watch: Effect.never
      })
      yield* TestClock.adjust(DEADLINE_MS)
      const result = yield* Fiber.join(fiber)
      expect(result).toMatchObject({ status: "error", sent: false, error_code: "deadline_exceeded" })
      expect(yield* Ref.get(typed)).toEqual([])
    })
  )

  it.effect("a send still awaiting its reply at the deadline is not abandoned, and is reported as sent", () =>
    Effect.gen(function* () {
      const reply = yield* Deferred.make<void>()
      const { fiber, typed } = yield* runWith({
        check: Effect.void,
        afterSend: Deferred.await(reply),
        watch: Effect.void
      })
      yield* TestClock.adjust(DEADLINE_MS * 3)
      expect(yield* Ref.get(typed)).toEqual(["echo hi"])
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* Deferred.succeed(reply, undefined)
      const result = yield* Fiber.join(fiber)
      expect(result).toMatchObject({ status: "submitted", sent: true, error_code: null })
    })
  )

  it.effect(
    "a client that cancels while a send awaits its reply: the send stands and is reported as sent",
    () =>
      Effect.gen(function* () {
        const reply = yield* Deferred.make<void>()
        const call = yield* makeCall()
        const { fiber, typed } = yield* runWith(
          { check: Effect.void, afterSend: Deferred.await(reply), watch: Effect.void },
          call
        )
        yield* TestClock.adjust(1)
        expect(yield* Ref.get(typed)).toEqual(["echo hi"])
        yield* call.cancel
        yield* TestClock.adjust(DEADLINE_MS)
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* Deferred.succeed(reply, undefined)
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({ status: "submitted", sent: true, error_code: null })
      })
  )

  it.effect("a client that cancels during the readiness check: request_cancelled, nothing typed", () =>
    Effect.gen(function* () {
      const call = yield* makeCall()
      const { fiber, typed } = yield* runWith(
        { check: Effect.never, afterSend: Effect.void, watch: Effect.void },
        call
      )
      yield* TestClock.adjust(1)
      yield* call.cancel
      const result = yield* Fiber.join(fiber)
      expect(result).toMatchObject({ status: "error", sent: false, error_code: "request_cancelled" })
      expect(yield* Ref.get(typed)).toEqual([])
    })
  )
})
