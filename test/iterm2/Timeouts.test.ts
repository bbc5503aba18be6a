/**
 * Request timeouts that must fire whoever waits (also a caller in an uninterruptible region, such as
 * the runner's send phase or a transaction's begin), and the suspect connection: after a request
 * timed out with nothing heard since, the next call reconnects instead of queueing behind it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { Iterm2Connection } from "../../src/layers/backends/iterm2/ConnectionService.js"
import type { FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import { failureOf, fakeStarter, getProperty, withLive } from "./helpers.js"

const startFake = fakeStarter()
/** A short request timeout: Rpc times each batch of requests with one real timer (not Effect's clock). */
const withShortTimeout = (fake: FakeIterm2Server) => withLive(fake, 300)

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

describe("request timeouts in uninterruptible regions", () => {
  it.live("a call from an uninterruptible region fails at its timeout", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      yield* withShortTimeout(fake)(
        Effect.gen(function* () {
          yield* getProperty("connect")
          fake.faultNext({ neverReply: true })
          const fiber = yield* Effect.forkChild(Effect.uninterruptible(getProperty("hang")))
          yield* Effect.promise(() => fake.waitForRequests(2))
          const error = failureOf(yield* Fiber.await(fiber))
          expect(error.reason).toBe("timeout")
        })
      )
    })
  )

  it.live("a transaction whose begin is never answered fails at the request timeout", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      yield* withShortTimeout(fake)(
        Effect.gen(function* () {
          const conn = yield* Iterm2Connection
          yield* getProperty("connect")
          fake.faultKind("transaction_request", { neverReply: true })
          const fiber = yield* Effect.forkChild(conn.transaction(getProperty("inside")))
          yield* Effect.promise(() => fake.waitForRequests(2))
          const exit = yield* Fiber.await(fiber)
          expect(failureOf(exit).message).toMatch(/transaction_request/)
          // Nothing ran inside the transaction that never began.
          expect(fake.requests.map((r) => r.request.get_property_request?.name ?? "tx")).toEqual([
            "connect",
            "tx"
          ])
        })
      )
    })
  )
})

describe("a suspect connection", () => {
  it.live("after a request timed out and nothing came back, the next call goes over a new connection", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      yield* withShortTimeout(fake)(
        Effect.gen(function* () {
          expect(yield* getProperty("first")).toBe('"first"')
          fake.faultNext({ neverReply: true })
          expect(failureOf(yield* Effect.exit(getProperty("lost", 100))).reason).toBe("timeout")
          expect(yield* getProperty("next")).toBe('"next"')
          expect(fake.connectionCount).toBe(2)
        })
      )
    })
  )

  it.live("a late reply clears the suspicion: iTerm2 answers, so the connection is kept", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      yield* withShortTimeout(fake)(
        Effect.gen(function* () {
          expect(yield* getProperty("first")).toBe('"first"')
          fake.faultNext({ delayMs: 200 })
          expect(failureOf(yield* Effect.exit(getProperty("slow", 20))).reason).toBe("timeout")
          yield* sleep(1_000) // the late reply arrives meanwhile
          expect(yield* getProperty("next")).toBe('"next"')
          expect(fake.connectionCount).toBe(1)
        })
      )
    })
  )
})
