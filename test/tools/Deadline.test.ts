/**
 * The call deadline in the tool adapter (TestClock): a read whose backend never answers is a
 * `deadline_exceeded` ToolError exactly at the deadline, not before; tools that bound themselves
 * (get_command_result) are left to their own wait.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { waitForOutput as outputWait } from "../../src/layers/runner/OutputWait.js"
import { CommandRunner } from "../../src/services/CommandRunner.js"
import { PromptTracker } from "../../src/services/PromptTracker.js"
import { Terminal } from "../../src/services/Terminal.js"
import { ToolSettings } from "../../src/services/ToolSettings.js"
import { callTool } from "../../src/tools/Adapter.js"
import { getCommandResult } from "../../src/tools/GetCommandResult.js"
import { listSessions } from "../../src/tools/ListSessions.js"
import { readTerminal } from "../../src/tools/ReadTerminal.js"
import type { ToolServices } from "../../src/tools/Tool.js"
import { waitForOutput } from "../../src/tools/WaitForOutput.js"
import { SESSION_ID } from "../support/RecordingBackend.js"

const DEADLINE_MS = 3_000

const hangingBackend = Layer.mergeAll(
  Layer.mock(Terminal, { read: () => Effect.never, listSessions: Effect.never, listing: Effect.never }),
  Layer.mock(PromptTracker, { watch: () => Effect.never })
)

/** get_command_result's wait runs long; wait_for_output is the runner's own flow over the hanging backend. */
const hanging = Layer.unwrap(
  Effect.gen(function* () {
    const backend = { terminal: yield* Terminal, tracker: yield* PromptTracker }
    return Layer.mock(CommandRunner, {
      result: () => Effect.sleep("10 seconds").pipe(Effect.andThen(Effect.die("waited"))),
      waitForOutput: (spec) => outputWait(backend, spec)
    })
  })
).pipe(Layer.provideMerge(hangingBackend))

const start = (effect: Effect.Effect<unknown, never, ToolServices>) =>
  Effect.forkChild(
    effect.pipe(
      Effect.provide(hanging),
      Effect.provideService(ToolSettings, { redactSecrets: true, deadlineMs: DEADLINE_MS })
    )
  )

/** Still running 1 ms before the deadline, then a `deadline_exceeded` ToolError exactly at it. */
const answersAtDeadline = (effect: Effect.Effect<unknown, never, ToolServices>) =>
  Effect.gen(function* () {
    const fiber = yield* start(effect)
    yield* TestClock.adjust(DEADLINE_MS - 1)
    expect(fiber.pollUnsafe()).toBeUndefined()
    yield* TestClock.adjust(1)
    const result = yield* Fiber.join(fiber)
    expect(result).toMatchObject({ isError: true, structuredContent: { error_code: "deadline_exceeded" } })
    return result
  })

describe("the call deadline (adapter)", () => {
  it.effect("read_terminal whose backend never answers: deadline_exceeded at the deadline", () =>
    Effect.gen(function* () {
      const result = yield* answersAtDeadline(callTool(readTerminal, { session_id: SESSION_ID }))
      expect(JSON.stringify(result)).toMatch(/within 3 s/)
    })
  )

  it.effect("list_sessions too", () =>
    Effect.gen(function* () {
      const fiber = yield* start(callTool(listSessions, {}))
      yield* TestClock.adjust(DEADLINE_MS)
      const result = yield* Fiber.join(fiber)
      expect(result).toMatchObject({ isError: true, structuredContent: { error_code: "deadline_exceeded" } })
    })
  )

  it.effect("get_command_result bounds itself: its wait runs past the call deadline", () =>
    Effect.gen(function* () {
      const fiber = yield* start(
        callTool(getCommandResult, { request_id: "0123456789abcdef0123456789abcdef", wait_seconds: 10 })
      )
      yield* TestClock.adjust(DEADLINE_MS * 2)
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("10 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result).toMatchObject({ isError: true, structuredContent: { error_code: "internal_error" } })
    })
  )

  it.effect(
    "wait_for_output bounds itself by timeout_seconds, but each backend request by the deadline",
    () =>
      Effect.asVoid(
        answersAtDeadline(callTool(waitForOutput, { session_id: SESSION_ID, timeout_seconds: 60 }))
      )
  )
})
