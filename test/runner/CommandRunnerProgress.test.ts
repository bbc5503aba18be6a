/**
 * Progress reports and cancellation in the runner's waits (TestClock): about one report a second
 * with increasing elapsed time and the line count once the command started, none after the
 * answer; a cancelled call answers at once (no clock advance) and the result stays available.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer, Queue, Ref } from "effect"
import { TestClock } from "effect/testing"
import { makeCommandRunner } from "../../src/layers/runner/CommandRunnerLive.js"
import { CallControl } from "../../src/services/CallControl.js"
import { CommandRunner } from "../../src/services/CommandRunner.js"
import { fail } from "../../src/services/Errors.js"
import { type PromptEvent, PromptTracker } from "../../src/services/PromptTracker.js"
import { Terminal } from "../../src/services/Terminal.js"
import { FakeTerminalDriver } from "../fakes/FakeTerminal.js"
import { type FakeCall, inWorld, makeCall, request } from "./support.js"

const within = <A, E, R>(call: FakeCall, self: Effect.Effect<A, E, R>) =>
  Effect.provideService(self, CallControl, call.control)

/** Let every runnable fiber run until it blocks (a few turns of the event loop; no clock involved). */
const settle = Effect.promise(
  () => new Promise<void>((resolve) => setTimeout(() => setTimeout(() => setTimeout(resolve, 0), 0), 0))
)

/** The runner and the fake terminal, with session s1 whose next command is typed at prompt p1. */
const sessionS1 = (output?: string) =>
  Effect.gen(function* () {
    const runner = yield* CommandRunner
    const fake = yield* FakeTerminalDriver
    yield* fake.addSession("s1", { promptId: "p1" })
    if (output !== undefined) yield* fake.setOutput("s1", "p1", output)
    return { runner, fake }
  })

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("")

describe("CommandRunner: progress while waiting", () => {
  it.effect(
    "run_command: one report a second, increasing, line counts once started, none after the answer",
    () =>
      inWorld(
        Effect.gen(function* () {
          const { runner, fake } = yield* sessionS1()
          const call = yield* makeCall()
          const fiber = yield* Effect.forkChild(within(call, runner.run(request("s1", "make"))))
          yield* fake.awaitSent(1)
          yield* TestClock.adjust(Duration.seconds(1))
          yield* fake.emit("s1", { _tag: "CommandStart", promptId: "p1", command: "make" })
          for (const n of [3, 7, 7, 12]) {
            yield* fake.setOutput("s1", "p1", lines(n))
            yield* TestClock.adjust(Duration.seconds(1))
          }
          yield* fake.emit("s1", { _tag: "CommandEnd", promptId: "p1", exitCode: 0 })
          const result = yield* Fiber.join(fiber)
          expect(result).toMatchObject({ status: "completed", output_line_count: 12 })
          const reports = yield* call.reports
          expect(reports.map((r) => r.elapsedMs)).toEqual([1000, 2000, 3000, 4000, 5000])
          expect(reports.map((r) => r.outputLines)).toEqual([null, 3, 7, 7, 12])
          expect(new Set(reports.map((r) => r.requestId))).toEqual(new Set([result.request_id]))
          yield* TestClock.adjust(Duration.seconds(10))
          expect(yield* call.reports).toHaveLength(5)
        })
      )
  )

  it.effect("a line count the backend cannot give is reported as null, and the wait goes on", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake } = yield* sessionS1(lines(4))
        const call = yield* makeCall()
        const submitted = yield* runner.run(request("s1", "make", { waitForCompletion: false }))
        yield* fake.emit("s1", { _tag: "CommandStart", promptId: "p1", command: "make" })
        yield* fake.failNext("outputLineCount", { error: fail("output_unavailable", "no positions") })
        // 3.5 s, not 3: the report due at 3 s would tie with the wait's end, and the TestClock
        // breaks such ties by registration order (the wait's timeout first).
        const fiber = yield* Effect.forkChild(within(call, runner.result(submitted.request_id, 3.5)))
        yield* TestClock.adjust(Duration.millis(3500))
        expect((yield* Fiber.join(fiber)).status).toBe("submitted")
        expect((yield* call.reports).map((r) => r.outputLines)).toEqual([null, 4, 4])
      })
    )
  )

  it.effect("get_command_result reports only while it waits; at wait 0 or without a token, none", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner } = yield* sessionS1()
        const submitted = yield* runner.run(request("s1", "make", { waitForCompletion: false }))
        const quiet = yield* makeCall({ wantsProgress: false })
        const noWait = yield* makeCall()
        const waiting = yield* makeCall()
        yield* within(noWait, runner.result(submitted.request_id, 0))
        // 2.5 s, not 2: no report tied with the wait's end (see above).
        const f1 = yield* Effect.forkChild(within(quiet, runner.result(submitted.request_id, 2.5)))
        const f2 = yield* Effect.forkChild(within(waiting, runner.result(submitted.request_id, 2.5)))
        yield* TestClock.adjust(Duration.millis(2500))
        yield* Fiber.join(f1)
        yield* Fiber.join(f2)
        expect(yield* noWait.reports).toEqual([])
        expect(yield* quiet.reports).toEqual([])
        expect((yield* waiting.reports).map((r) => [r.elapsedMs, r.outputLines])).toEqual([
          [1000, null],
          [2000, null]
        ])
      })
    )
  )

  it.effect("interrupt_command reports while it waits for the command to stop", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake } = yield* sessionS1(lines(2))
        const call = yield* makeCall()
        const submitted = yield* runner.run(request("s1", "sleep 100", { waitForCompletion: false }))
        yield* fake.emit("s1", { _tag: "CommandStart", promptId: "p1", command: "sleep 100" })
        const fiber = yield* Effect.forkChild(within(call, runner.interrupt(submitted.request_id, 10)))
        yield* TestClock.adjust(Duration.seconds(2))
        yield* fake.emit("s1", { _tag: "CommandEnd", promptId: "p1", exitCode: 130 })
        expect(yield* Fiber.join(fiber)).toMatchObject({ exit_code: 130, interrupt_sent: true })
        expect((yield* call.reports).map((r) => [r.elapsedMs, r.outputLines])).toEqual([
          [1000, 2],
          [2000, 2]
        ])
      })
    )
  )

  it.effect("a report being sent when the command ends is finished before the answer", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        const entered = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const call = yield* makeCall({
          beforeReport: Effect.andThen(Deferred.succeed(entered, undefined), Deferred.await(gate))
        })
        yield* fake.addSession("s1", { promptId: "p1" })
        yield* fake.setOutput("s1", "p1", "")
        const fiber = yield* Effect.forkChild(within(call, runner.run(request("s1", "make"))))
        yield* fake.awaitSent(1)
        yield* TestClock.adjust(Duration.seconds(1))
        yield* Deferred.await(entered)
        yield* fake.emit("s1", { _tag: "CommandEnd", promptId: "p1", exitCode: 0 })
        yield* settle
        expect(yield* fake.watchers("s1")).toBe(0)
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* Deferred.succeed(gate, undefined)
        expect((yield* Fiber.join(fiber)).status).toBe("completed")
        expect(yield* call.reports).toHaveLength(1)
      })
    )
  )
})

describe("CommandRunner: a cancelled call", () => {
  it.effect(
    "run_command after the send answers at once with the snapshot; the result stays for get_command_result",
    () =>
      inWorld(
        Effect.gen(function* () {
          const { runner, fake } = yield* sessionS1("built\n")
          const call = yield* makeCall()
          const fiber = yield* Effect.forkChild(
            within(call, runner.run(request("s1", "make", { timeoutSeconds: 60 })))
          )
          yield* fake.awaitSent(1)
          yield* call.cancel
          const answer = yield* Fiber.join(fiber)
          expect(answer).toMatchObject({ status: "submitted", sent: true, error_code: null })
          expect(answer.message).toContain(`get_command_result with request_id ${answer.request_id}`)
          expect(yield* fake.watchers("s1")).toBe(1)
          yield* fake.emit("s1", { _tag: "CommandEnd", promptId: "p1", exitCode: 0 })
          expect(yield* runner.result(answer.request_id, 5)).toMatchObject({
            status: "completed",
            output: "built"
          })
        })
      )
  )

  it.effect("get_command_result and interrupt_command return the current result at once", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake } = yield* sessionS1("tick\n")
        const submitted = yield* runner.run(request("s1", "tail -f log", { waitForCompletion: false }))
        yield* fake.emit("s1", { _tag: "CommandStart", promptId: "p1", command: "tail -f log" })
        const resultCall = yield* makeCall()
        const interruptCall = yield* makeCall()
        const r = yield* Effect.forkChild(within(resultCall, runner.result(submitted.request_id, 30)))
        const i = yield* Effect.forkChild(within(interruptCall, runner.interrupt(submitted.request_id, 30)))
        yield* resultCall.cancel
        yield* interruptCall.cancel
        expect(yield* Fiber.join(r)).toMatchObject({ status: "submitted", output: "tick" })
        const stopped = yield* Fiber.join(i)
        expect(stopped).toMatchObject({ status: "still_running", interrupt_sent: true, output: "tick" })
        expect(stopped.message).toContain("cancelled the wait")
      })
    )
  )

  it.effect(
    "run_command before the send: error, sent false, request_cancelled, recorded; nothing typed",
    () =>
      Effect.gen(function* () {
        const typed = yield* Ref.make<ReadonlyArray<string>>([])
        const terminal = Layer.mock(Terminal, {
          submit: (_sessionId, command) =>
            Effect.as(
              Ref.update(typed, (t) => [...t, command]),
              { promptId: "p1" }
            )
        })
        const tracker = Layer.mock(PromptTracker, {
          watch: () => Effect.andThen(Effect.never, Queue.unbounded<PromptEvent>())
        })
        const world = Layer.effect(CommandRunner, makeCommandRunner({ promptGraceMs: 0 })).pipe(
          Layer.provide(Layer.merge(terminal, tracker))
        )
        yield* Effect.provide(
          Effect.gen(function* () {
            const runner = yield* CommandRunner
            const call = yield* makeCall()
            const fiber = yield* Effect.forkChild(within(call, runner.run(request("s1", "echo hi"))))
            yield* Effect.yieldNow
            yield* call.cancel
            const result = yield* Fiber.join(fiber)
            expect(result).toMatchObject({ status: "error", sent: false, error_code: "request_cancelled" })
            expect(result.message).toContain("nothing was sent")
            expect(yield* runner.result(result.request_id, 0)).toEqual(result)
          }),
          world
        )
        expect(yield* Ref.get(typed)).toEqual([])
      })
  )
})
