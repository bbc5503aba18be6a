import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { CommandRunner } from "../../src/services/CommandRunner.js"
import { fail, outcomeUnknown } from "../../src/services/Errors.js"
import type { Readiness } from "../../src/services/Terminal.js"
import { FakeTerminalDriver } from "../fakes/FakeTerminal.js"
import { inWorld, request } from "./support.js"

describe("CommandRunner: nothing is sent unless the session is verified ready", () => {
  it.effect("an unknown session is rejected with session_not_found and nothing sent", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1")
        const result = yield* runner.run(request("nope", "ls"))
        expect(result).toMatchObject({
          session_id: "nope",
          status: "rejected",
          sent: false,
          error_code: "session_not_found",
          exit_code: null
        })
        expect(result.message).toContain("nope")
        expect(yield* fake.ledger).toEqual([])
      })
    )
  )

  const notReady: ReadonlyArray<[Readiness, string, RegExp]> = [
    ["busy", "session_not_ready", /not at a verified shell command boundary/],
    ["input_pending", "session_not_ready", /pending input/],
    ["interactive", "session_not_ready", /not at a verified shell command boundary/],
    ["unknown", "session_not_ready", /not at a verified shell command boundary/],
    ["shell_integration_required", "shell_integration_required", /Shell Integration is required/]
  ]
  for (const [readiness, code, message] of notReady) {
    it.effect(`a ${readiness} session is rejected with ${code} and nothing sent`, () =>
      inWorld(
        Effect.gen(function* () {
          const runner = yield* CommandRunner
          const fake = yield* FakeTerminalDriver
          yield* fake.addSession("s1", { readiness })
          const result = yield* runner.run(request("s1", "ls"))
          expect(result).toMatchObject({ status: "rejected", sent: false, error_code: code })
          expect(result.message).toMatch(message)
          expect(yield* fake.ledger).toEqual([])
          expect(yield* fake.watchers("s1")).toBe(0)
          // The session claim was released: once ready, the next command goes through.
          yield* fake.setReadiness("s1", "ready")
          const next = yield* runner.run(request("s1", "ls", { waitForCompletion: false }))
          expect(next).toMatchObject({ status: "submitted", sent: true })
        })
      )
    )
  }

  it.effect("invalid commands fail with invalid_request before anything is watched or sent", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1")
        for (const command of ["ls\nrm -rf ~", "ls\r", "   ", "echo \u001b[31m", "ls\u202e"]) {
          const error = yield* Effect.flip(runner.run(request("s1", command)))
          expect(error).toMatchObject({ _tag: "TermPilotError", code: "invalid_request" })
        }
        const badSession = yield* Effect.flip(runner.run(request("", "ls")))
        expect(badSession.code).toBe("invalid_request")
        const badTimeout = yield* Effect.flip(runner.run(request("s1", "ls", { timeoutSeconds: 0 })))
        expect(badTimeout.code).toBe("invalid_request")
        expect(yield* fake.ledger).toEqual([])
      })
    )
  )

  it.effect("a second command on a session with ours in flight is rejected; the first is untouched", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p1" })
        const first = yield* runner.run(request("s1", "sleep 60", { waitForCompletion: false }))
        // Even if the session looked ready again (e.g. a readiness glitch), our own claim holds.
        yield* fake.setReadiness("s1", "ready")
        const second = yield* runner.run(request("s1", "echo second"))
        expect(second).toMatchObject({ status: "rejected", sent: false, error_code: "command_in_flight" })
        expect(second.message).toContain(first.request_id)
        expect(yield* fake.ledger).toEqual([{ sessionId: "s1", command: "sleep 60", promptId: "p1" }])
        expect(yield* runner.result(second.request_id, 0)).toEqual(second)
      })
    )
  )

  it.effect("two concurrent runs racing for one session: exactly one is sent", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1")
        const results = yield* Effect.all(
          [
            runner.run(request("s1", "echo a", { waitForCompletion: false })),
            runner.run(request("s1", "echo b", { waitForCompletion: false }))
          ],
          { concurrency: "unbounded" }
        )
        expect(results.map((r) => r.status).sort()).toEqual(["rejected", "submitted"])
        expect(results.find((r) => r.status === "rejected")?.error_code).toBe("command_in_flight")
        expect(yield* fake.ledger).toHaveLength(1)
      })
    )
  )

  it.effect("a watch that cannot be opened is a rejection with nothing sent", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1")
        yield* fake.failNext("watch", {
          error: fail("shell_integration_required", "Shell Integration could not monitor command completion.")
        })
        const result = yield* runner.run(request("s1", "ls"))
        expect(result).toMatchObject({
          status: "rejected",
          sent: false,
          error_code: "shell_integration_required"
        })
        expect(yield* fake.ledger).toEqual([])
      })
    )
  )

  it.effect("a backend that is unreachable before sending gives error with sent false", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1")
        yield* fake.failNext("submit", { error: fail("iterm2_unavailable", "iTerm2 is not running.") })
        const result = yield* runner.run(request("s1", "ls"))
        expect(result).toMatchObject({ status: "error", sent: false, error_code: "iterm2_unavailable" })
        expect(yield* fake.ledger).toEqual([])
      })
    )
  )

  it.effect("an unreachable tmux server before sending is error with sent false too", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1")
        yield* fake.failNext("submit", { error: fail("tmux_unavailable", "No tmux server is running.") })
        const result = yield* runner.run(request("s1", "ls"))
        expect(result).toMatchObject({ status: "error", sent: false, error_code: "tmux_unavailable" })
        expect(yield* fake.ledger).toEqual([])
      })
    )
  )

  it.effect("an unavailable backend whose send outcome is unknown is reported as sent", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1")
        yield* fake.failNext("submit", {
          error: outcomeUnknown("iterm2_unavailable", "The connection closed before iTerm2 replied."),
          afterSend: true
        })
        const result = yield* runner.run(request("s1", "make deploy"))
        expect(result).toMatchObject({ status: "error", sent: true, error_code: "iterm2_unavailable" })
        expect(yield* fake.ledger).toHaveLength(1)
      })
    )
  )

  it.effect("a submit that fails after the text left is an error with sent true, never a rejection", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1")
        yield* fake.failNext("submit", {
          error: fail("internal_error", "no reply to send_text within 5000 ms"),
          afterSend: true
        })
        const result = yield* runner.run(request("s1", "make deploy"))
        expect(result).toMatchObject({ status: "error", sent: true, error_code: "internal_error" })
        expect(result.message).toContain("may have been typed")
        expect(yield* fake.ledger).toHaveLength(1)
      })
    )
  )
})
