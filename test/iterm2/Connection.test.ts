/**
 * Iterm2ConnectionLive against the fake iTerm2: correlation of out-of-order replies,
 * notifications to every subscriber, reconnect after a drop, timeouts, protocol failures and
 * serialised transactions.
 */
import net from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Queue, Ref } from "effect"
import WebSocket from "ws"
import type { Notification } from "../../src/generated/iterm2/Iterm2Messages.js"
import { iterm2Codec } from "../../src/layers/backends/iterm2/Codec.js"
import { Iterm2Connection } from "../../src/layers/backends/iterm2/ConnectionService.js"
import { INVALID_REQUEST } from "../fakes/iterm2/FakeIterm2Server.js"
import { failureOf, fakeStarter, getProperty, withLive } from "./helpers.js"

const startFake = fakeStarter()

describe("Iterm2ConnectionLive calls", () => {
  it.live("correlates replies by id when they arrive out of order", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      yield* withLive(fake)(
        Effect.gen(function* () {
          yield* getProperty("warm-up")
          const order = yield* Ref.make<Array<string>>([])
          fake.faultNext({ delayMs: 300 })
          const slow = yield* Effect.forkChild(
            getProperty("slow").pipe(Effect.tap((v) => Ref.update(order, (o) => [...o, v!])))
          )
          yield* Effect.promise(() => fake.waitForRequests(2))
          const fast = yield* getProperty("fast").pipe(
            Effect.tap((v) => Ref.update(order, (o) => [...o, v!]))
          )
          expect(fast).toBe('"fast"')
          expect(yield* Fiber.join(slow)).toBe('"slow"')
          expect(yield* Ref.get(order)).toEqual(['"fast"', '"slow"'])
          const ids = fake.requests.map((r) => r.id)
          expect(ids).toEqual([1, 2, 3])
        })
      )
    })
  )

  it.live("delivers notifications to every subscriber", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      const pushed: Notification = {
        prompt_notification: { session: "S1", command_end: { status: 2 }, unique_prompt_id: "P1" }
      }
      yield* withLive(fake)(
        Effect.scoped(
          Effect.gen(function* () {
            const connection = yield* Iterm2Connection
            const a = yield* connection.events
            const b = yield* connection.events
            yield* getProperty("connect")
            fake.push(pushed)
            const got = yield* Effect.all([Queue.take(a), Queue.take(b)]).pipe(Effect.timeout("2 seconds"))
            expect(got).toEqual([
              { _tag: "Notification", notification: pushed },
              { _tag: "Notification", notification: pushed }
            ])
          })
        )
      )
    })
  )

  it.live("a dropped socket fails the in-flight call, tells subscribers, and the next call reconnects", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      yield* withLive(fake)(
        Effect.scoped(
          Effect.gen(function* () {
            const events = yield* (yield* Iterm2Connection).events
            yield* getProperty("first")
            fake.faultNext({ neverReply: true })
            const inFlight = yield* Effect.forkChild(getProperty("lost"))
            yield* Effect.promise(() => fake.waitForRequests(2))
            fake.dropConnections()
            const error = failureOf(yield* Fiber.await(inFlight).pipe(Effect.timeout("2 seconds")))
            expect(error.reason).toBe("disconnected")
            expect(yield* Queue.take(events).pipe(Effect.timeout("2 seconds"))).toEqual({
              _tag: "Disconnected"
            })
            expect(yield* getProperty("again")).toBe('"again"')
            expect(fake.connectionCount).toBe(2)
          })
        )
      )
    })
  )

  // Rpc times requests with a real timer (one per batch), not Effect's clock.
  it.live("times out a request that is never answered, not before its timeout", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      yield* withLive(fake)(
        Effect.gen(function* () {
          yield* getProperty("connect")
          fake.faultNext({ neverReply: true })
          const started = Date.now()
          const fiber = yield* Effect.forkChild(getProperty("hang", 400))
          yield* Effect.promise(() => fake.waitForRequests(2))
          yield* Effect.sleep("200 millis")
          expect(fiber.pollUnsafe()).toBeUndefined()
          const error = failureOf(yield* Fiber.await(fiber))
          expect(Date.now() - started).toBeGreaterThanOrEqual(390)
          expect(error.reason).toBe("timeout")
          expect(error.message).toMatch(/get_property_request/)
        })
      )
    })
  )

  it.live("callAll: replies in the order asked, whatever order they arrive in", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      yield* withLive(fake)(
        Effect.gen(function* () {
          const conn = yield* Iterm2Connection
          yield* getProperty("connect")
          fake.faultNext({ delayMs: 150 }) // the first one answers last
          const replies = yield* conn.callAll(
            ["a", "b", "c"].map((name) => ({ get_property_request: { session_id: "s", name } }))
          )
          const values = replies.map((exit) =>
            Exit.isSuccess(exit) ? exit.value.get_property_response?.json_value : "failed"
          )
          expect(values).toEqual(['"a"', '"b"', '"c"'])
        })
      )
    })
  )

  it.live("callAll: a request never answered times out alone; the others keep their replies", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      yield* withLive(fake)(
        Effect.gen(function* () {
          const conn = yield* Iterm2Connection
          yield* getProperty("connect")
          fake.faultNext({ neverReply: true })
          const started = Date.now()
          const replies = yield* conn.callAll(
            ["lost", "b"].map((name) => ({ get_property_request: { session_id: "s", name } })),
            { timeoutMs: 300 }
          )
          expect(Date.now() - started).toBeGreaterThanOrEqual(290)
          expect(failureOf(replies[0]!).reason).toBe("timeout")
          expect(failureOf(replies[0]!).message).toMatch(/get_property_request/)
          const second = replies[1]!
          expect(Exit.isSuccess(second) && second.value.get_property_response?.json_value).toBe('"b"')
        })
      )
    })
  )

  it.live("an error reply and an empty reply are protocol failures", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      yield* withLive(fake)(
        Effect.gen(function* () {
          fake.faultNext({ error: "Not ready. This is a bug!" })
          const errorReply = failureOf(yield* Effect.exit(getProperty("x")))
          expect(errorReply.reason).toBe("protocol")
          expect(errorReply.message).toMatch(/Not ready\. This is a bug!/)
          fake.faultNext({ emptyReply: true })
          const empty = failureOf(yield* Effect.exit(getProperty("y")))
          expect(empty.reason).toBe("protocol")
          // the handler answering nothing (as for an invalid LineRange) is the same
          const noAnswer = failureOf(
            yield* Effect.exit(Effect.flatMap(Iterm2Connection, (c) => c.call({ focus_request: {} })))
          )
          expect(noAnswer.reason).toBe("protocol")
          expect(yield* getProperty("still-fine")).toBe('"still-fine"')
        })
      )
    })
  )
})

describe("Iterm2ConnectionLive transactions", () => {
  it.live("the fake refuses a nested begin (so serialisation is observable)", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      const statuses = yield* withLive(fake)(
        Effect.gen(function* () {
          const c = yield* Iterm2Connection
          const begin = c.call({ transaction_request: { begin: true } })
          const end = c.call({ transaction_request: { begin: false } })
          return [yield* begin, yield* begin, yield* end, yield* end].map(
            (r) => r.transaction_response?.status ?? "OK"
          )
        })
      )
      expect(statuses).toEqual(["OK", "ALREADY_IN_TRANSACTION", "OK", "NO_TRANSACTION"])
    })
  )

  it.live("two concurrent transactions never nest, and each ends", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      yield* withLive(fake)(
        Effect.gen(function* () {
          const c = yield* Iterm2Connection
          const body = (name: string) =>
            c.transaction(Effect.andThen(getProperty(name), Effect.sleep("50 millis")).pipe(Effect.as(name)))
          const results = yield* Effect.all([body("a"), body("b"), body("c")], { concurrency: "unbounded" })
          expect(results).toEqual(["a", "b", "c"])
        })
      )
      const trace = fake.requests.map((r) =>
        r.request.transaction_request !== undefined
          ? r.request.transaction_request.begin
            ? "begin"
            : "end"
          : "call"
      )
      expect(trace).toEqual(["begin", "call", "end", "begin", "call", "end", "begin", "call", "end"])
    })
  )

  it.live(
    "inside a transaction, a request after its connection dropped fails: none goes out on a new one",
    () =>
      Effect.gen(function* () {
        const fake = yield* startFake()
        yield* withLive(fake)(
          Effect.gen(function* () {
            const c = yield* Iterm2Connection
            const exit = yield* Effect.exit(
              c.transaction(
                Effect.gen(function* () {
                  yield* getProperty("before")
                  fake.dropConnections()
                  yield* Effect.sleep("50 millis")
                  return yield* getProperty("after")
                })
              )
            )
            expect(failureOf(exit).reason).toBe("disconnected")
            const names = fake.requests.map((r) => r.request.get_property_request?.name)
            expect(names).not.toContain("after")
            expect(fake.connectionCount).toBe(1)
            // Outside a transaction, the next request connects again.
            expect(yield* getProperty("later")).toBe('"later"')
            expect(fake.connectionCount).toBe(2)
          })
        )
      })
  )

  it.live("ends the transaction when the body fails", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      const exit = yield* withLive(fake)(
        Effect.flatMap(Iterm2Connection, (c) =>
          Effect.exit(c.transaction(Effect.fail("body failed" as const)))
        )
      )
      // Exactly one Fail reason with the body's error (Effect 4 exits carry annotations, so no toEqual).
      expect(
        Exit.isFailure(exit) && exit.cause.reasons.map((r) => (Cause.isFailReason(r) ? r.error : r._tag))
      ).toEqual(["body failed"])
      expect(fake.requests.map((r) => r.request.transaction_request?.begin)).toEqual([true, false])
    })
  )
})

describe("fake iTerm2 framing", () => {
  it.live("drops unparsable frames and answers a request without a submessage with the upgrade error", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      const replies = yield* Effect.promise(
        () =>
          new Promise<Array<unknown>>((resolve, reject) => {
            const got: Array<unknown> = []
            const ws = new WebSocket("ws://localhost/", "api.iterm2.com", {
              createConnection: () => net.connect(fake.socketPath),
              origin: "ws://localhost/",
              headers: { "x-iterm2-library-version": "node 0.2" }
            })
            ws.on("error", reject)
            ws.on("open", () => {
              ws.send(Buffer.from([0x0a, 0x05, 0x01]), { binary: true }) // truncated: dropped
              ws.send(iterm2Codec().encodeClient({ id: 41 }), { binary: true }) // no submessage
              ws.send(iterm2Codec().encodeClient({ id: 42, list_sessions_request: {} }), { binary: true })
            })
            ws.on("message", (data) => {
              got.push(iterm2Codec().decodeServer(data as Buffer))
              if (got.length === 2) {
                ws.close()
                resolve(got)
              }
            })
            setTimeout(() => reject(new Error(`only ${got.length} replies`)), 2_000)
          })
      )
      expect(replies).toEqual([
        { id: 41, error: INVALID_REQUEST },
        { id: 42, list_sessions_response: {} }
      ])
    })
  )
})
