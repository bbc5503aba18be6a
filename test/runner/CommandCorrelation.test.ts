import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Queue, Ref } from "effect"
import { correlate } from "../../src/layers/runner/CommandCorrelation.js"
import type { PromptEvent } from "../../src/services/PromptTracker.js"

const outcomeOf = (ours: string | null, events: ReadonlyArray<PromptEvent>) =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<PromptEvent>()
    yield* Queue.offerAll(queue, events)
    return yield* correlate(queue, ours)
  })

describe("CommandCorrelation", () => {
  it.effect("a redraw of our own prompt is not an outcome; our end is", () =>
    Effect.gen(function* () {
      const outcome = yield* outcomeOf("p1", [
        { _tag: "Prompt", promptId: "p1" },
        { _tag: "CommandStart", promptId: "p1", command: "ls" },
        { _tag: "CommandEnd", promptId: "p1", exitCode: 4 }
      ])
      expect(outcome).toEqual({ _tag: "Ended", exitCode: 4, promptId: "p1" })
    })
  )

  it.effect("an end without an id is read at the prompt we typed at", () =>
    Effect.gen(function* () {
      expect(yield* outcomeOf("p1", [{ _tag: "CommandEnd", promptId: null, exitCode: 0 }])).toEqual({
        _tag: "Ended",
        exitCode: 0,
        promptId: "p1"
      })
    })
  )

  it.effect("an end of another prompt is foreign", () =>
    Effect.gen(function* () {
      const outcome = yield* outcomeOf("p1", [{ _tag: "CommandEnd", promptId: "p0", exitCode: 0 }])
      expect(outcome._tag).toBe("Foreign")
    })
  )

  it.effect(
    "the shell it ran in gone (its ssh ended) ends it without an exit status, with the transport's",
    () =>
      Effect.gen(function* () {
        const outcome = yield* outcomeOf("p1", [
          { _tag: "CommandStart", promptId: "p1", command: null },
          { _tag: "ShellGone", promptId: "p1", exitCode: 255 }
        ])
        expect(outcome).toEqual({ _tag: "ShellGone", transportExitCode: 255, promptId: "p1" })
      })
  )

  it.effect("without ids, a prompt before our start is ignored and one after it means aborted", () =>
    Effect.gen(function* () {
      const outcome = yield* outcomeOf(null, [
        { _tag: "Prompt", promptId: null },
        { _tag: "CommandStart", promptId: null, command: null },
        { _tag: "Prompt", promptId: null }
      ])
      expect(outcome).toEqual({ _tag: "Aborted" })
    })
  )

  it.effect("an event queue that shuts down mid-watch counts as a lost connection", () =>
    Effect.gen(function* () {
      const queue = yield* Queue.unbounded<PromptEvent>()
      const fiber = yield* Effect.fork(correlate(queue, "p1"))
      yield* Effect.yieldNow()
      yield* Queue.shutdown(queue)
      const outcome = yield* Fiber.join(fiber)
      expect(outcome._tag).toBe("Lost")
    })
  )

  it.effect("tells the runner once when our command starts, and never for another prompt's start", () =>
    Effect.gen(function* () {
      const queue = yield* Queue.unbounded<PromptEvent>()
      const starts = yield* Ref.make(0)
      yield* Queue.offerAll(queue, [
        { _tag: "Prompt", promptId: "p1" },
        { _tag: "CommandStart", promptId: "p1", command: "ls" },
        { _tag: "CommandStart", promptId: "p1", command: "ls" },
        { _tag: "CommandEnd", promptId: "p1", exitCode: 0 }
      ])
      yield* correlate(
        queue,
        "p1",
        Ref.update(starts, (n) => n + 1)
      )
      expect(yield* Ref.get(starts)).toBe(1)
      yield* Queue.offer(queue, { _tag: "CommandStart", promptId: "p9", command: "vim" })
      expect(
        (yield* correlate(
          queue,
          "p1",
          Ref.update(starts, (n) => n + 1)
        ))._tag
      ).toBe("Foreign")
      expect(yield* Ref.get(starts)).toBe(1)
    })
  )
})
