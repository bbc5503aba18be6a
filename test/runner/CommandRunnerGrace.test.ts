/**
 * After our command ends, the runner waits (bounded) for the shell's next prompt before answering,
 * so the session is ready again when the caller sees the result.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { PROMPT_GRACE_MS } from "../../src/layers/runner/CommandRunnerLive.js"
import { CommandRunner } from "../../src/services/CommandRunner.js"
import { Terminal } from "../../src/services/Terminal.js"
import { FakeTerminalDriver } from "../fakes/FakeTerminal.js"
import { graceWorld, request } from "./support.js"

const started = Effect.gen(function* () {
  const runner = yield* CommandRunner
  const fake = yield* FakeTerminalDriver
  yield* fake.addSession("s1", { promptId: "p1" })
  yield* fake.setOutput("s1", "p1", "done\n")
  const fiber = yield* Effect.forkChild(runner.run(request("s1", "make")))
  yield* fake.awaitSent(1)
  yield* fake.emit("s1", { _tag: "CommandStart", promptId: "p1", command: "make" })
  yield* fake.emit("s1", { _tag: "CommandEnd", promptId: "p1", exitCode: 0 })
  return { fake, fiber }
})

describe("CommandRunner: the next prompt after a command", () => {
  it.effect("answers once the shell has drawn its next prompt", () =>
    Effect.provide(
      Effect.gen(function* () {
        const { fake, fiber } = yield* started
        yield* TestClock.adjust(Duration.millis(PROMPT_GRACE_MS / 2))
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* fake.emit("s1", { _tag: "Prompt", promptId: "p2" })
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({ status: "completed", exit_code: 0, output: "done" })
        expect(yield* (yield* Terminal).readiness("s1")).toBe("ready")
      }),
      graceWorld
    )
  )

  it.effect("answers after the grace period when no prompt comes", () =>
    Effect.provide(
      Effect.gen(function* () {
        const { fiber } = yield* started
        yield* TestClock.adjust(Duration.millis(PROMPT_GRACE_MS - 1))
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust(Duration.millis(1))
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({ status: "completed", exit_code: 0, output: "done" })
      }),
      graceWorld
    )
  )
})
