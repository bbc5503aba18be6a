import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Queue, Ref } from "effect"
import { correlate } from "../../src/layers/runner/CommandCorrelation.js"
import type { PromptEvent } from "../../src/services/PromptTracker.js"

const outcomeOf = (ours: string | null, events: ReadonlyArray<PromptEvent>, after?: number) =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<PromptEvent>()
    yield* Queue.offerAll(queue, events)
    return yield* correlate(queue, ours, Effect.void, after)
  })

describe("CommandCorrelation", () => {
  // The watch is subscribed before the send: it may still hold the events of the command another
  // process ran there just before ours was typed (numbered at or below Submission.after).
  const previousCommand: ReadonlyArray<PromptEvent> = [
    { _tag: "CommandStart", promptId: "8", command: null, seq: 11 },
    { _tag: "CommandEnd", promptId: "8", exitCode: 0, seq: 12 },
    { _tag: "Prompt", promptId: "9", seq: 13 }
  ]
  const ours: ReadonlyArray<PromptEvent> = [
    { _tag: "CommandStart", promptId: "9", command: null, seq: 14 },
    { _tag: "CommandEnd", promptId: "9", exitCode: 5, seq: 15 }
  ]

  it.effect("events offered before the command was typed are not about it", () =>
    Effect.gen(function* () {
      expect(yield* outcomeOf("9", [...previousCommand, ...ours], 13)).toEqual({
        _tag: "Ended",
        exitCode: 5,
        promptId: "9"
      })
    })
  )

  it.effect("without that number, the same events are another command's (unattributed)", () =>
    Effect.gen(function* () {
      expect((yield* outcomeOf("9", [...previousCommand, ...ours]))._tag).toBe("Foreign")
    })
  )

  it.effect("an event after the send is judged as before, also one of another prompt", () =>
    Effect.gen(function* () {
      const late: PromptEvent = { _tag: "CommandStart", promptId: "8", command: null, seq: 14 }
      expect((yield* outcomeOf("9", [...previousCommand, late], 13))._tag).toBe("Foreign")
    })
  )

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
      const fiber = yield* Effect.forkChild(correlate(queue, "p1"))
      yield* Effect.yieldNow
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
