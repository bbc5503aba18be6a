import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { CommandRunner } from "../../src/services/CommandRunner.js"
import { fail } from "../../src/services/Errors.js"
import { FakeTerminalDriver } from "../fakes/FakeTerminal.js"
import { inWorld, request } from "./support.js"

describe("CommandRunner: what happens to a sent command", () => {
  it.effect("a session closed during the wait gives session_lost with sent true", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        const fiber = yield* Effect.forkChild(runner.run(request("s1", "exit")))
        yield* fake.awaitSent(1)
        yield* fake.closeSession("s1")
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({
          status: "session_lost",
          sent: true,
          error_code: "session_lost",
          exit_code: null
        })
        expect(result.finished_at).not.toBeNull()
      })
    )
  )

  it.effect("a dropped connection gives error with sent true and says it may still be running", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        const fiber = yield* Effect.forkChild(runner.run(request("s1", "sleep 5")))
        yield* fake.awaitSent(1)
        yield* fake.loseConnection("socket closed")
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({ status: "error", sent: true, error_code: "iterm2_unavailable" })
        expect(result.message).toContain("may still be running")
      })
    )
  )

  it.effect("a lost tmux server is reported with tmux's code, not iTerm2's", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        const fiber = yield* Effect.forkChild(runner.run(request("s1", "sleep 5")))
        yield* fake.awaitSent(1)
        yield* fake.loseConnection("server went away", "tmux_unavailable")
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({ status: "error", sent: true, error_code: "tmux_unavailable" })
      })
    )
  )

  it.effect("a CommandStart of another prompt is not taken as ours", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        yield* fake.setOutput("s1", "p9", "someone else's output")
        const fiber = yield* Effect.forkChild(runner.run(request("s1", "ls")))
        yield* fake.awaitSent(1)
        yield* fake.emit("s1", { _tag: "CommandStart", promptId: "p9", command: "vim" })
        yield* fake.emit("s1", { _tag: "CommandEnd", promptId: "p9", exitCode: 0 })
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({
          status: "error",
          sent: true,
          exit_code: null,
          output: null,
          error_code: "command_unattributed"
        })
        expect(result.message).toContain("another command started there")
        expect(yield* fake.outputRequests).toEqual([])
      })
    )
  )

  it.effect("output that cannot be read keeps the exit status", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        yield* fake.failNext("commandOutput", {
          error: fail("output_unavailable", "The output range scrolled away.")
        })
        yield* fake.emitOnSubmit("s1", [{ _tag: "CommandEnd", promptId: "p1", exitCode: 7 }])
        const result = yield* runner.run(request("s1", "false"))
        expect(result).toMatchObject({
          status: "error",
          sent: true,
          exit_code: 7,
          output: null,
          error_code: "output_unavailable"
        })
        expect(result.message).toContain("exit status 7")
      })
    )
  )

  it.effect("without prompt ids the output is not guessed from another prompt", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: null })
        yield* fake.emitOnSubmit("s1", [{ _tag: "CommandEnd", promptId: null, exitCode: 1 }])
        const result = yield* runner.run(request("s1", "false"))
        expect(result).toMatchObject({ status: "error", exit_code: 1, error_code: "output_unavailable" })
        expect(yield* fake.outputRequests).toEqual([])
      })
    )
  )

  it.effect("the session stays claimed while a timed-out command is watched, and is freed at its end", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        yield* fake.setOutput("s1", "p1", "")
        const fiber = yield* Effect.forkChild(runner.run(request("s1", "sleep 100", { timeoutSeconds: 2 })))
        yield* fake.awaitSent(1)
        yield* TestClock.adjust(Duration.seconds(2))
        const first = yield* Fiber.join(fiber)
        expect(first.status).toBe("timed_out")
        yield* fake.setReadiness("s1", "ready")
        const blocked = yield* runner.run(request("s1", "ls"))
        expect(blocked).toMatchObject({ status: "rejected", error_code: "command_in_flight", sent: false })
        expect(yield* fake.ledger).toHaveLength(1)
        yield* fake.emit("s1", { _tag: "CommandEnd", promptId: "p1", exitCode: 0 })
        yield* fake.emit("s1", { _tag: "Prompt", promptId: "p2" })
        expect(yield* runner.result(first.request_id, 5)).toMatchObject({ status: "completed", exit_code: 0 })
        const next = yield* runner.run(request("s1", "ls", { waitForCompletion: false }))
        expect(next.status).toBe("submitted")
      })
    )
  )

  it.effect(
    "the background watch is bounded: after 6 hours it gives up, records it and frees the session",
    () =>
      inWorld(
        Effect.gen(function* () {
          const runner = yield* CommandRunner
          const fake = yield* FakeTerminalDriver
          yield* fake.addSession("s1", { promptId: "p1" })
          const submitted = yield* runner.run(request("s1", "tail -f log", { waitForCompletion: false }))
          yield* TestClock.adjust(Duration.hours(6))
          const final = yield* runner.result(submitted.request_id, 0)
          expect(final).toMatchObject({ status: "error", error_code: "command_timeout", sent: true })
          expect(final.message).toContain("Stopped watching after 6 hours")
          expect(yield* fake.watchers("s1")).toBe(0)
          yield* fake.setReadiness("s1", "ready")
          expect((yield* runner.run(request("s1", "ls", { waitForCompletion: false }))).status).toBe(
            "submitted"
          )
        })
      )
  )
})

describe("CommandRunner: the result registry", () => {
  it.effect("an unknown request id fails with request_not_found", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const error = yield* Effect.flip(runner.result("0123456789abcdef0123456789abcdef", 0))
        expect(error).toMatchObject({ _tag: "TermPilotError", code: "request_not_found" })
        expect(error.message).toContain("0123456789abcdef0123456789abcdef")
      })
    )
  )

  it.effect("keeps the last 256 requests: the 257th evicts the oldest finished one, not a pending one", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("live", { promptId: "p1" })
        const pending = yield* runner.run(request("live", "sleep 1000", { waitForCompletion: false }))
        const finished: Array<string> = []
        for (let i = 0; i < 256; i++)
          finished.push((yield* runner.run(request("gone", `echo ${i}`))).request_id)
        // 257 requests: the pending one is kept, the oldest finished one is gone, the rest are kept.
        expect((yield* runner.result(pending.request_id, 0)).status).toBe("submitted")
        expect((yield* Effect.flip(runner.result(finished[0]!, 0))).code).toBe("request_not_found")
        expect((yield* runner.result(finished[1]!, 0)).command).toBe("echo 1")
        expect((yield* runner.result(finished[255]!, 0)).command).toBe("echo 255")
        const more = yield* runner.run(request("gone", "echo more"))
        expect((yield* Effect.flip(runner.result(finished[1]!, 0))).code).toBe("request_not_found")
        expect((yield* runner.result(more.request_id, 0)).status).toBe("rejected")
      })
    )
  )
})
