/**
 * get_command_result of a command still running: its snapshot with the output so far (bounded
 * tail, truncated, line count) once the watch saw it start; without output before that, and when
 * the read fails (no error: the snapshot still answers).
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { CommandRunner } from "../../src/services/CommandRunner.js"
import { fail } from "../../src/services/Errors.js"
import { FakeTerminalDriver } from "../fakes/FakeTerminal.js"
import { inWorld, request } from "./support.js"

const sent = (options: { maxOutputChars?: number; started?: boolean } = {}) =>
  Effect.gen(function* () {
    const runner = yield* CommandRunner
    const fake = yield* FakeTerminalDriver
    yield* fake.addSession("s1", { promptId: "p1" })
    const submitted = yield* runner.run(
      request("s1", "make", { waitForCompletion: false, maxOutputChars: options.maxOutputChars ?? 32768 })
    )
    if (options.started !== false)
      yield* fake.emit("s1", { _tag: "CommandStart", promptId: "p1", command: "make" })
    return { runner, fake, requestId: submitted.request_id }
  })

describe("CommandRunner.result of a command still running", () => {
  it.effect("comes with the output so far, read with the request's bounds", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* sent()
        yield* fake.setOutput("s1", "p1", "compiling a\ncompiling b\n")
        const result = yield* runner.result(requestId, 0)
        expect(result).toMatchObject({
          status: "submitted",
          sent: true,
          output: "compiling a\ncompiling b",
          truncated: false,
          output_line_count: 2,
          finished_at: null
        })
        expect(yield* fake.outputRequests).toEqual([
          { sessionId: "s1", promptId: "p1", bounds: { maxLines: 2000, maxChars: 32768 } }
        ])
        yield* fake.setOutput("s1", "p1", "compiling a\ncompiling b\nlinking\n")
        expect((yield* runner.result(requestId, 0)).output_line_count).toBe(3)
      })
    )
  )

  it.effect("keeps the tail within max_output_chars and says it was truncated", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* sent({ maxOutputChars: 12 })
        yield* fake.setOutput("s1", "p1", "first line\nsecond\nthird\n")
        const result = yield* runner.result(requestId, 0)
        expect(result).toMatchObject({ output: "second\nthird", truncated: true, output_line_count: 2 })
      })
    )
  )

  it.effect("after a wait that ran out, and after run_command's timeout, still with the output so far", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        yield* fake.setOutput("s1", "p1", "waiting\n")
        const fiber = yield* Effect.forkChild(runner.run(request("s1", "sleep 100", { timeoutSeconds: 2 })))
        yield* fake.awaitSent(1)
        yield* fake.emit("s1", { _tag: "CommandStart", promptId: "p1", command: "sleep 100" })
        yield* TestClock.adjust(Duration.seconds(2))
        const timedOut = yield* Fiber.join(fiber)
        expect(timedOut.status).toBe("timed_out")
        const later = yield* Effect.forkChild(runner.result(timedOut.request_id, 3))
        yield* TestClock.adjust(Duration.seconds(3))
        expect(yield* Fiber.join(later)).toMatchObject({ status: "timed_out", output: "waiting" })
      })
    )
  )

  it.effect("not started yet: no output, nothing read", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* sent({ started: false })
        yield* fake.setOutput("s1", "p1", "should not be read\n")
        expect(yield* runner.result(requestId, 0)).toMatchObject({ status: "submitted", output: null })
        expect(yield* fake.outputRequests).toEqual([])
      })
    )
  )

  it.effect("a failed read leaves the output null and is not an error", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* sent()
        yield* fake.failNext("commandOutput", { error: fail("output_unavailable", "scrolled away") })
        expect(yield* runner.result(requestId, 0)).toMatchObject({ status: "submitted", output: null })
      })
    )
  )
})
