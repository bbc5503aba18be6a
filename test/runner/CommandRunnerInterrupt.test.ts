/**
 * interrupt_command's protocol over the FakeTerminal: one ETX only to a command TermPilot sent that
 * is running, the shell's own final result (or still_running), and every refusal with nothing sent.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { CallControl } from "../../src/services/CallControl.js"
import { CommandRunner } from "../../src/services/CommandRunner.js"
import { fail, outcomeUnknown } from "../../src/services/Errors.js"
import { ToolSettings } from "../../src/services/ToolSettings.js"
import { FakeTerminalDriver } from "../fakes/FakeTerminal.js"
import { inWorld, makeCall, request } from "./support.js"

const DEADLINE_MS = 2_000

/** A `sleep 100` sent by TermPilot to `sessionId` (prompt `<id>-p1`) and started, not waited for. */
const running = (sessionId = "s1", options: { started?: boolean } = {}) =>
  Effect.gen(function* () {
    const runner = yield* CommandRunner
    const fake = yield* FakeTerminalDriver
    const promptId = `${sessionId}-p1`
    yield* fake.addSession(sessionId, { promptId })
    const submitted = yield* runner.run(request(sessionId, "sleep 100", { waitForCompletion: false }))
    expect(submitted.status).toBe("submitted")
    if (options.started !== false) {
      yield* fake.emit(sessionId, { _tag: "CommandStart", promptId, command: "sleep 100" })
    }
    return { runner, fake, requestId: submitted.request_id, promptId }
  })

const withDeadline = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provideService(self, ToolSettings, { redactSecrets: true, deadlineMs: DEADLINE_MS })

describe("CommandRunner.interrupt: a running command", () => {
  it.effect("sends one ETX to that session only and answers with the shell's final result, exit 130", () =>
    inWorld(
      Effect.gen(function* () {
        const other = yield* running("s2")
        const { runner, fake, requestId, promptId } = yield* running("s1")
        yield* fake.setOutput("s1", promptId, "^C\n")
        yield* fake.scriptInterrupt("s1", {
          events: [
            { _tag: "CommandEnd", promptId, exitCode: 130 },
            { _tag: "Prompt", promptId: "s1-p2" }
          ]
        })
        const result = yield* runner.interrupt(requestId, 5)
        expect(result).toMatchObject({
          request_id: requestId,
          status: "completed",
          exit_code: 130,
          output: "^C",
          sent: true,
          interrupt_sent: true
        })
        expect(result.message).toMatch(/One interrupt \(ETX.*130 \(128 \+ SIGINT\)/)
        expect(yield* fake.interrupts).toEqual([{ sessionId: "s1", promptId }])
        expect(yield* runner.result(requestId, 0)).toMatchObject({ status: "completed", exit_code: 130 })
        expect((yield* runner.result(other.requestId, 0)).status).toBe("submitted")
      })
    )
  )

  it.effect("a program that ignores the interrupt: still_running with its output so far, one ETX", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId, promptId } = yield* running()
        yield* fake.setOutput("s1", promptId, "trapped SIGINT\nstill here\n")
        const fiber = yield* Effect.forkChild(runner.interrupt(requestId, 3))
        yield* TestClock.adjust(Duration.seconds(3))
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({
          status: "still_running",
          interrupt_sent: true,
          sent: true,
          exit_code: null,
          output: "trapped SIGINT\nstill here",
          output_line_count: 2,
          finished_at: null
        })
        expect(result.message).toContain("did not stop within 3 s")
        expect(result.message).toContain("never sends anything stronger")
        expect(yield* fake.interrupts).toHaveLength(1)
        // The user may ask again: a second call sends a second ETX, never anything else.
        const again = yield* Effect.forkChild(runner.interrupt(requestId, 1))
        yield* TestClock.adjust(Duration.seconds(1))
        expect((yield* Fiber.join(again)).status).toBe("still_running")
        expect(yield* fake.interrupts).toEqual([
          { sessionId: "s1", promptId },
          { sessionId: "s1", promptId }
        ])
      })
    )
  )

  it.effect("the race: the command ends on its own as the ETX goes out; reported truthfully", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId, promptId } = yield* running()
        yield* fake.setOutput("s1", promptId, "done\n")
        yield* fake.scriptInterrupt("s1", {
          verdict: "sent",
          events: [{ _tag: "CommandEnd", promptId, exitCode: 0 }]
        })
        const result = yield* runner.interrupt(requestId, 5)
        expect(result).toMatchObject({
          status: "completed",
          exit_code: 0,
          output: "done",
          interrupt_sent: true
        })
        expect(result.message).toContain("ended on its own or handled the interrupt")
        expect(yield* fake.interrupts).toHaveLength(1)
      })
    )
  )

  it.effect("a command that ended just before the call: its final result, nothing sent", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId, promptId } = yield* running()
        yield* fake.setOutput("s1", promptId, "ok\n")
        yield* fake.emit("s1", { _tag: "CommandEnd", promptId, exitCode: 0 })
        const result = yield* runner.interrupt(requestId, 5)
        expect(result).toMatchObject({
          status: "completed",
          exit_code: 0,
          output: "ok",
          interrupt_sent: false
        })
        expect(yield* fake.interrupts).toEqual([])
      })
    )
  )

  it.effect("the backend finds a newer prompt: nothing sent, the final result once recorded", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId, promptId } = yield* running()
        yield* fake.setOutput("s1", promptId, "")
        yield* fake.scriptInterrupt("s1", { verdict: "ended" })
        const fiber = yield* Effect.forkChild(runner.interrupt(requestId, 5))
        yield* TestClock.adjust(Duration.seconds(1))
        yield* fake.emit("s1", { _tag: "CommandEnd", promptId, exitCode: 2 })
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({ status: "completed", exit_code: 2, interrupt_sent: false })
        expect(yield* fake.interrupts).toEqual([])
      })
    )
  )
})

describe("CommandRunner.interrupt: refused, nothing sent", () => {
  it.effect("an unknown request id: request_not_found", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake } = yield* running()
        const error = yield* Effect.flip(runner.interrupt("0123456789abcdef0123456789abcdef", 5))
        expect(error.code).toBe("request_not_found")
        expect(yield* fake.interrupts).toEqual([])
      })
    )
  )

  it.effect("a finished command: its final result with interrupt_sent false", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        yield* fake.setOutput("s1", "p1", "hello\n")
        yield* fake.emitOnSubmit("s1", [{ _tag: "CommandEnd", promptId: "p1", exitCode: 0 }])
        const final = yield* runner.run(request("s1", "echo hello"))
        const result = yield* runner.interrupt(final.request_id, 5)
        expect(final).toMatchObject({ status: "completed", exit_code: 0, message: null })
        expect(result).toEqual({ ...final, interrupt_sent: false, message: result.message })
        expect(result.message).toContain("already finished; no interrupt was sent")
        expect(yield* fake.interrupts).toEqual([])
      })
    )
  )

  it.effect("a submitted command that never started: command_not_running", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* running("s1", { started: false })
        const error = yield* Effect.flip(runner.interrupt(requestId, 5))
        expect(error.code).toBe("command_not_running")
        expect(error.message).toContain("has not started running")
        expect(yield* fake.interrupts).toEqual([])
      })
    )
  )

  it.effect("the backend's check finds it not started: command_not_running", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* running()
        yield* fake.scriptInterrupt("s1", { verdict: "not_started" })
        expect((yield* Effect.flip(runner.interrupt(requestId, 5))).code).toBe("command_not_running")
        expect(yield* fake.interrupts).toEqual([])
      })
    )
  )

  it.effect("without prompt ids nothing can be verified: command_not_running", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: null })
        const submitted = yield* runner.run(request("s1", "sleep 100", { waitForCompletion: false }))
        yield* fake.emit("s1", { _tag: "CommandStart", promptId: null, command: "sleep 100" })
        const error = yield* Effect.flip(runner.interrupt(submitted.request_id, 5))
        expect(error.code).toBe("command_not_running")
        expect(error.message).toContain("cannot verify")
        expect(yield* fake.interrupts).toEqual([])
      })
    )
  )

  it.effect("a session that closed: the session_lost result, nothing sent", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* running()
        yield* fake.closeSession("s1")
        expect((yield* runner.result(requestId, 5)).status).toBe("session_lost")
        const result = yield* runner.interrupt(requestId, 5)
        expect(result).toMatchObject({ status: "session_lost", interrupt_sent: false })
        expect(yield* fake.interrupts).toEqual([])
      })
    )
  )

  it.effect("a session closed before the runner heard of it: session_not_found from the check", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* running()
        yield* fake.failNext("interrupt", { error: fail("session_not_found", "Session 's1' was not found.") })
        expect((yield* Effect.flip(runner.interrupt(requestId, 5))).code).toBe("session_not_found")
        expect(yield* fake.interrupts).toEqual([])
      })
    )
  )

  it.effect("wait_seconds out of 0..60 or not finite: invalid_request", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* running()
        for (const wait of [-1, 61, Number.NaN, Number.POSITIVE_INFINITY]) {
          expect((yield* Effect.flip(runner.interrupt(requestId, wait))).code).toBe("invalid_request")
        }
        expect(yield* fake.interrupts).toEqual([])
      })
    )
  )
})

describe("CommandRunner.interrupt: the check and send are held to the call", () => {
  it.effect("a check that never answers ends at the deadline: deadline_exceeded, nothing sent", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* running()
        yield* fake.scriptInterrupt("s1", { beforeCheck: Effect.never })
        const fiber = yield* Effect.forkChild(withDeadline(runner.interrupt(requestId, 5)))
        yield* TestClock.adjust(DEADLINE_MS - 1)
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust(1)
        const error = yield* Effect.flip(Fiber.join(fiber))
        expect(error.code).toBe("deadline_exceeded")
        expect(error.message).toContain("no interrupt was sent")
        expect(yield* fake.interrupts).toEqual([])
      })
    )
  )

  it.effect("a client that cancels before the send: request_cancelled, nothing sent", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* running()
        const call = yield* makeCall()
        yield* fake.scriptInterrupt("s1", { beforeCheck: Effect.never })
        const fiber = yield* Effect.forkChild(
          withDeadline(Effect.provideService(runner.interrupt(requestId, 5), CallControl, call.control))
        )
        yield* Effect.yieldNow
        yield* call.cancel
        const error = yield* Effect.flip(Fiber.join(fiber))
        expect(error.code).toBe("request_cancelled")
        expect(yield* fake.interrupts).toEqual([])
        expect((yield* runner.result(requestId, 0)).status).toBe("submitted")
      })
    )
  )

  it.effect("a send under way at the deadline is not abandoned and is reported as sent", () =>
    inWorld(
      Effect.gen(function* () {
        const { runner, fake, requestId } = yield* running()
        const reply = yield* Deferred.make<void>()
        yield* fake.scriptInterrupt("s1", { afterSend: Deferred.await(reply) })
        const fiber = yield* Effect.forkChild(withDeadline(runner.interrupt(requestId, 0)))
        yield* TestClock.adjust(DEADLINE_MS * 3)
        expect(yield* fake.interrupts).toHaveLength(1)
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* Deferred.succeed(reply, undefined)
        expect(yield* Fiber.join(fiber)).toMatchObject({ status: "still_running", interrupt_sent: true })
      })
    )
  )

  it.effect(
    "a send whose outcome is unknown fails with the backend's code and says it may have been sent",
    () =>
      inWorld(
        Effect.gen(function* () {
          const { runner, fake, requestId } = yield* running()
          yield* fake.failNext("interrupt", {
            error: outcomeUnknown("iterm2_unavailable", "socket closed"),
            afterSend: true
          })
          const error = yield* Effect.flip(runner.interrupt(requestId, 5))
          expect(error.code).toBe("iterm2_unavailable")
          expect(error.message).toContain("may have been sent")
          expect(yield* fake.interrupts).toHaveLength(1)
        })
      )
  )
})
