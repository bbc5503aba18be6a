import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { CommandRunner } from "../../src/services/CommandRunner.js"
import { FakeTerminalDriver } from "../fakes/FakeTerminal.js"
import { inWorld, request } from "./support.js"

describe("CommandRunner: commands that run to an outcome", () => {
  for (const exitCode of [0, 1, 7]) {
    it.effect(`completes with exit status ${exitCode} and the command's own output`, () =>
      inWorld(
        Effect.gen(function* () {
          const runner = yield* CommandRunner
          const fake = yield* FakeTerminalDriver
          yield* fake.addSession("s1", { promptId: "p1" })
          yield* fake.setOutput("s1", "p1", `line one\nexit was ${exitCode}\n`)
          const fiber = yield* Effect.forkChild(runner.run(request("s1", `sh -c 'exit ${exitCode}'`)))
          const sent = yield* fake.awaitSent(1)
          yield* fake.emit("s1", {
            _tag: "CommandStart",
            promptId: "p1",
            command: `sh -c 'exit ${exitCode}'`
          })
          yield* TestClock.adjust(Duration.millis(1500))
          yield* fake.emit("s1", { _tag: "CommandEnd", promptId: "p1", exitCode })
          const result = yield* Fiber.join(fiber)

          expect(sent).toEqual([{ sessionId: "s1", command: `sh -c 'exit ${exitCode}'`, promptId: "p1" }])
          expect(result).toMatchObject({
            session_id: "s1",
            command: `sh -c 'exit ${exitCode}'`,
            status: "completed",
            sent: true,
            exit_code: exitCode,
            output: `line one\nexit was ${exitCode}`,
            truncated: false,
            output_line_count: 2,
            error_code: null,
            message: null,
            duration_ms: 1500
          })
          expect(result.request_id).toMatch(/^[0-9a-f]{32}$/)
          expect(Date.parse(result.finished_at ?? "") - Date.parse(result.started_at)).toBe(1500)
          expect(yield* fake.outputRequests).toEqual([
            { sessionId: "s1", promptId: "p1", bounds: { maxLines: 2000, maxChars: 32768 } }
          ])
          expect(yield* fake.watchers("s1")).toBe(0)
        })
      )
    )
  }

  it.effect("keeps the tail of an output longer than the bounds and says it was truncated", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        const lines = Array.from({ length: 3000 }, (_, i) => `row ${i + 1}`)
        yield* fake.setOutput("s1", "p1", lines.join("\n"))
        yield* fake.emitOnSubmit("s1", [{ _tag: "CommandEnd", promptId: "p1", exitCode: 0 }])
        const byLines = yield* runner.run(request("s1", "seq 3000", { maxOutputChars: 131072 }))
        expect(byLines).toMatchObject({ status: "completed", truncated: true, output_line_count: 2000 })
        expect(byLines.output?.split("\n")[0]).toBe("row 1001")
        expect(byLines.output?.endsWith("\nrow 3000")).toBe(true)

        yield* fake.emit("s1", { _tag: "Prompt", promptId: "p2" })
        yield* fake.setOutput("s1", "p2", "alpha\nbeta\ngamma")
        yield* fake.emitOnSubmit("s1", [{ _tag: "CommandEnd", promptId: "p2", exitCode: 0 }])
        const byChars = yield* runner.run(request("s1", "printf words", { maxOutputChars: 8 }))
        // Whole older lines are dropped to fit the character bound (TextBounds.boundTail).
        expect(byChars).toMatchObject({
          status: "completed",
          output: "gamma",
          truncated: true,
          output_line_count: 1
        })
        expect((yield* fake.outputRequests)[1]?.bounds).toEqual({ maxLines: 2000, maxChars: 8 })
      })
    )
  )

  it.effect("subscribes before sending: events emitted during the send itself are not missed", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        yield* fake.setOutput("s1", "p1", "fast")
        yield* fake.emitOnSubmit("s1", [
          { _tag: "CommandStart", promptId: "p1", command: "true" },
          { _tag: "CommandEnd", promptId: "p1", exitCode: 0 },
          { _tag: "Prompt", promptId: "p2" }
        ])
        const fiber = yield* Effect.forkChild(runner.run(request("s1", "echo fast", { timeoutSeconds: 1 })))
        yield* TestClock.adjust(Duration.seconds(1))
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({ status: "completed", exit_code: 0, output: "fast", sent: true })
      })
    )
  )

  it.effect("times out without claiming cancellation; result() later picks up the exit status", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        yield* fake.setOutput("s1", "p1", "done at last")
        const fiber = yield* Effect.forkChild(runner.run(request("s1", "sleep 100", { timeoutSeconds: 5 })))
        yield* fake.awaitSent(1)
        yield* fake.emit("s1", { _tag: "CommandStart", promptId: "p1", command: "sleep 100" })
        yield* TestClock.adjust(Duration.seconds(5))
        const timedOut = yield* Fiber.join(fiber)
        expect(timedOut).toMatchObject({
          status: "timed_out",
          sent: true,
          exit_code: null,
          output: null,
          error_code: "command_timeout",
          finished_at: null
        })
        expect(timedOut.message).toContain(
          "Stopped waiting after 5 seconds; the command may still be running."
        )
        expect(timedOut.message).toContain(`get_command_result with request_id ${timedOut.request_id}`)
        expect(timedOut.message).not.toMatch(/cancel|killed|stopped the command/i)

        expect(yield* runner.result(timedOut.request_id, 0)).toMatchObject({ status: "timed_out" })
        const pending = yield* Effect.forkChild(runner.result(timedOut.request_id, 60))
        yield* TestClock.adjust(Duration.seconds(90))
        yield* fake.emit("s1", { _tag: "CommandEnd", promptId: "p1", exitCode: 3 })
        // The earlier wait gave up at 60 s, before the end: it reports the still-pending state.
        expect(yield* Fiber.join(pending)).toMatchObject({ status: "timed_out" })
        const later = yield* runner.result(timedOut.request_id, 10)
        expect(later).toMatchObject({
          request_id: timedOut.request_id,
          status: "completed",
          exit_code: 3,
          output: "done at last",
          duration_ms: 95_000
        })
        expect(yield* fake.watchers("s1")).toBe(0)
      })
    )
  )

  it.effect(
    "wait_for_completion false returns submitted right after the send; result() waits for the end",
    () =>
      inWorld(
        Effect.gen(function* () {
          const runner = yield* CommandRunner
          const fake = yield* FakeTerminalDriver
          yield* fake.addSession("s1", { promptId: "p1" })
          yield* fake.setOutput("s1", "p1", "built")
          const submitted = yield* runner.run(request("s1", "make", { waitForCompletion: false }))
          expect(submitted).toMatchObject({
            status: "submitted",
            sent: true,
            exit_code: null,
            error_code: null
          })
          expect(yield* fake.ledger).toHaveLength(1)
          const waiting = yield* Effect.forkChild(runner.result(submitted.request_id, 30))
          yield* fake.emit("s1", { _tag: "CommandStart", promptId: "p1", command: "make" })
          yield* fake.emit("s1", { _tag: "CommandEnd", promptId: "p1", exitCode: 2 })
          expect(yield* Fiber.join(waiting)).toMatchObject({
            status: "completed",
            exit_code: 2,
            output: "built"
          })
        })
      )
  )

  it.effect("a new prompt without an exit status completes with exit_code null and says why", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        yield* fake.emitOnSubmit("s1", [{ _tag: "Prompt", promptId: "p2" }])
        const result = yield* runner.run(request("s1", "echo hi"))
        expect(result).toMatchObject({ status: "completed", sent: true, exit_code: null, output: null })
        expect(result.message).toContain("without reporting an exit status")
      })
    )
  )

  it.effect("20 concurrent runs on 20 sessions each get their own result", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        const ids = Array.from({ length: 20 }, (_, i) => `s${i}`)
        for (const id of ids) {
          yield* fake.addSession(id, { promptId: `${id}-p` })
          yield* fake.setOutput(id, `${id}-p`, `output of ${id}`)
        }
        const all = yield* Effect.forkChild(
          Effect.all(
            ids.map((id) => runner.run(request(id, `echo ${id}`))),
            { concurrency: "unbounded" }
          )
        )
        yield* fake.awaitSent(20)
        for (const [i, id] of [...ids.entries()].reverse()) {
          yield* fake.emit(id, { _tag: "CommandEnd", promptId: `${id}-p`, exitCode: i })
        }
        const results = yield* Fiber.join(all)
        expect(results.map((r) => [r.session_id, r.command, r.exit_code, r.output])).toEqual(
          ids.map((id, i) => [id, `echo ${id}`, i, `output of ${id}`])
        )
        expect(new Set(results.map((r) => r.request_id)).size).toBe(20)
        expect((yield* fake.ledger).map((s) => s.sessionId).sort()).toEqual([...ids].sort())
      })
    )
  )
})
