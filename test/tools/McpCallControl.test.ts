/**
 * makeCallControl on its own (TestClock): a progress send never fails the call, is cut off by its
 * own timeout, and, once under way, is finished before an interruption of the caller takes effect;
 * `cancelled` follows the request's AbortSignal.
 */
import { describe, expect, it } from "@effect/vitest"
import type { ServerNotification } from "@modelcontextprotocol/client"
import { Deferred, Duration, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { type CallExtra, makeCallControl, PROGRESS_SEND_TIMEOUT } from "../../src/tools/McpCallControl.js"

const report = { requestId: "r1", elapsedMs: 1_000, outputLines: null }

const extraWith = (send: (n: ServerNotification) => Promise<void>, signal = new AbortController().signal) =>
  ({ signal, _meta: { progressToken: "tok" }, sendNotification: send }) satisfies CallExtra

describe("makeCallControl", () => {
  it.effect("a send that fails is dropped; the call goes on", () =>
    Effect.gen(function* () {
      const { control } = makeCallControl(extraWith(() => Promise.reject(new Error("transport closed"))))
      yield* control.progress(report)
    })
  )

  it.effect("a send that never completes is given up after its timeout, not before", () =>
    Effect.gen(function* () {
      const { control } = makeCallControl(extraWith(() => new Promise<void>(() => {})))
      const fiber = yield* Effect.forkChild(control.progress(report))
      const timeout = Duration.toMillis(Duration.fromInputUnsafe(PROGRESS_SEND_TIMEOUT))
      yield* TestClock.adjust(timeout - 1)
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(1)
      yield* Fiber.join(fiber)
    })
  )

  it.effect("a send under way finishes before an interruption of the caller takes effect", () =>
    Effect.gen(function* () {
      let finish = () => {}
      const sent: Array<ServerNotification> = []
      const started = yield* Deferred.make<void>()
      const { control } = makeCallControl(
        extraWith(
          (n) =>
            new Promise<void>((resolve) => {
              Deferred.doneUnsafe(started, Exit.void)
              finish = () => {
                sent.push(n)
                resolve()
              }
            })
        )
      )
      const fiber = yield* Effect.forkChild(control.progress(report))
      yield* Deferred.await(started)
      const interrupting = yield* Effect.forkChild(Fiber.interrupt(fiber))
      // Real time (not the TestClock): an interruptible send would have let go long before.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      expect(interrupting.pollUnsafe()).toBeUndefined()
      finish()
      yield* Fiber.join(interrupting)
      expect(sent).toHaveLength(1)
      expect(sent[0]).toMatchObject({
        method: "notifications/progress",
        params: { progressToken: "tok", progress: 1 }
      })
    })
  )

  it.effect("cancelled completes when the request's signal aborts, also when it already had", () =>
    Effect.gen(function* () {
      const abort = new AbortController()
      const { control } = makeCallControl(extraWith(() => Promise.resolve(), abort.signal))
      const waiting = yield* Effect.forkChild(control.cancelled)
      yield* Effect.yieldNow
      expect(waiting.pollUnsafe()).toBeUndefined()
      abort.abort()
      yield* Fiber.join(waiting)
      yield* control.cancelled // already aborted: at once
    })
  )

  it.effect("after close, reports are dropped", () =>
    Effect.gen(function* () {
      const sent: Array<ServerNotification> = []
      const call = makeCallControl(extraWith((n) => Promise.resolve(void sent.push(n))))
      yield* call.control.progress(report)
      call.close()
      yield* call.control.progress({ ...report, elapsedMs: 2_000 })
      expect(sent).toHaveLength(1)
    })
  )
})
