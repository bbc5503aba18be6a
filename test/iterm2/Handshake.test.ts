/**
 * Handshake and authentication against the fake iTerm2: what the fake rejects (raw sockets),
 * and how the live layer connects, authenticates and maps each failure.
 */
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { afterEach } from "vitest"
import { Iterm2Connection, type Iterm2Error } from "../../src/layers/backends/iterm2/ConnectionService.js"
import { iterm2SocketPath } from "../../src/layers/backends/iterm2/SocketPath.js"
import { type FakeIterm2Options, FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import {
  echoHandler,
  envCookie,
  liveLayer,
  rawHandshake,
  settingsFor,
  validHeaders,
  writeFakeOsascript
} from "./helpers.js"

const fakes: Array<FakeIterm2Server> = []
const startFake = (options: Partial<FakeIterm2Options> = {}) =>
  Effect.promise(async () => {
    const fake = await FakeIterm2Server.start({ handler: echoHandler, ...options })
    fakes.push(fake)
    return fake
  })
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()))
})

const listSessions = Effect.flatMap(Iterm2Connection, (c) => c.call({ list_sessions_request: {} }))
const failureOf = <A>(exit: Exit.Exit<A, Iterm2Error>): Iterm2Error => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reasons = exit.cause.reasons
  const only = reasons.length === 1 ? reasons[0] : undefined
  const failure = only !== undefined && Cause.isFailReason(only) ? only.error : undefined
  if (failure === undefined) throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return failure
}

describe("iterm2SocketPath", () => {
  it("follows IT2_SUITE, else iTerm2", () => {
    expect(iterm2SocketPath("/Users/a")).toBe("/Users/a/Library/Application Support/iTerm2/private/socket")
    expect(iterm2SocketPath("/Users/a", "Nightly")).toBe(
      "/Users/a/Library/Application Support/Nightly/private/socket"
    )
    expect(iterm2SocketPath("/Users/a", "")).toBe(
      "/Users/a/Library/Application Support/iTerm2/private/socket"
    )
  })
})

describe("fake iTerm2 handshake rules (raw sockets)", () => {
  it.live("accepts a well-formed handshake and reports the protocol version", () =>
    Effect.gen(function* () {
      const fake = yield* startFake({ allowAll: true, protocolVersion: "1.17" })
      const reply = yield* Effect.promise(() => rawHandshake(fake.socketPath, validHeaders()))
      expect(reply).toMatch(/^HTTP\/1\.1 101 /)
      expect(reply).toMatch(/\r\nX-iTerm2-Protocol-Version: 1\.17\r\n/i)
      expect(reply).toMatch(/\r\nSec-WebSocket-Protocol: api\.iterm2\.com\r\n/i)
    })
  )

  const cases: Array<[string, Record<string, string | undefined>, string, string?]> = [
    ["Connection with several tokens", { Connection: "keep-alive, Upgrade" }, "400 Bad Request"],
    ["missing library version", { "x-iterm2-library-version": undefined }, "400 Bad Request"],
    ["library version with one token", { "x-iterm2-library-version": "node" }, "400 Bad Request"],
    ["several subprotocols", { "Sec-WebSocket-Protocol": "api.iterm2.com, chat" }, "400 Bad Request"],
    ["wrong subprotocol", { "Sec-WebSocket-Protocol": "chat" }, "400 Bad Request"],
    ["foreign origin", { Origin: "http://evil.example/" }, "400 Bad Request"],
    ["foreign host", { Host: "example.com" }, "400 Bad Request"],
    ["a content-length", { "Content-Length": "0" }, "400 Bad Request"],
    ["websocket version 8", { "Sec-WebSocket-Version": "8" }, "400 Bad Request"],
    ["a path other than /", {}, "400 Bad Request", "GET /api HTTP/1.1"],
    ["HTTP/1.0", {}, "400 Bad Request", "GET / HTTP/1.0"],
    ["python library 0.23", { "x-iterm2-library-version": "python 0.23" }, "406 Unacceptable"],
    ["an unknown cookie", { "x-iterm2-cookie": "0123456789abcdef0123456789abcdef" }, "401 Unauthorized"]
  ]
  for (const [name, change, status, requestLine] of cases) {
    it.live(`rejects ${name} with a bare ${status}`, () =>
      Effect.gen(function* () {
        const fake = yield* startFake({ cookies: ["goodcookie"] })
        const headers = { ...validHeaders(), "x-iterm2-cookie": "goodcookie", ...change }
        const reply = yield* Effect.promise(() => rawHandshake(fake.socketPath, headers, requestLine))
        expect(reply).toBe(
          `HTTP/1.1 ${status}${status.startsWith("406") ? " (upgrade Python library)" : ""}\r\n\r\n`
        )
        expect(fake.connectionCount).toBe(0)
      })
    )
  }

  it.live("consumes a cookie: the second handshake with it gets 401", () =>
    Effect.gen(function* () {
      const fake = yield* startFake({ cookies: ["onceonly"] })
      const headers = { ...validHeaders(), "x-iterm2-cookie": "onceonly" }
      expect(yield* Effect.promise(() => rawHandshake(fake.socketPath, headers))).toMatch(/^HTTP\/1\.1 101 /)
      expect(yield* Effect.promise(() => rawHandshake(fake.socketPath, headers))).toBe(
        "HTTP/1.1 401 Unauthorized\r\n\r\n"
      )
    })
  )
})

describe("Iterm2ConnectionLive connect and auth", () => {
  it.live("connects with our own headers and reads the protocol version", () =>
    Effect.gen(function* () {
      const fake = yield* startFake({ allowAll: true, protocolVersion: "1.11" })
      const version = yield* Effect.flatMap(Iterm2Connection, (c) => c.protocolVersion).pipe(
        Effect.provide(liveLayer(settingsFor(fake.socketPath, fake.dir)))
      )
      expect(version).toEqual([1, 11])
      expect(fake.connectionCount).toBe(1)
    })
  )

  it.live("maps a refused handshake (no cookie) to auth_denied with a remedy", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      const exit = yield* Effect.exit(
        listSessions.pipe(Effect.provide(liveLayer(settingsFor(fake.socketPath, fake.dir))))
      )
      const error = failureOf(exit)
      expect(error.reason).toBe("auth_denied")
      expect(error.message).toMatch(/401/)
      expect(error.message).toMatch(/Allow all apps to connect/)
    })
  )

  it.live("uses ITERM2_COOKIE once: accepted, then forgotten after a drop", () =>
    Effect.gen(function* () {
      const fake = yield* startFake({ cookies: ["envcookie"] })
      const settings = settingsFor(fake.socketPath, fake.dir, envCookie("envcookie", "envkey"))
      const second = yield* Effect.gen(function* () {
        yield* listSessions
        fake.dropConnections()
        yield* Effect.sleep("50 millis")
        return yield* Effect.exit(listSessions)
      }).pipe(Effect.provide(liveLayer(settings)))
      expect(fake.connectionCount).toBe(1)
      // The env cookie is not sent again and no osascript exists: the reconnect is refused.
      expect(failureOf(second).reason).toBe("auth_denied")
    })
  )

  it.live("retries a refused env cookie once with a fresh AppleScript cookie", () =>
    Effect.gen(function* () {
      const fake = yield* startFake({ cookies: ["cookie1"] })
      const osascript = writeFakeOsascript(fake.dir, { mode: "cookies" })
      const settings = settingsFor(fake.socketPath, fake.dir, {
        ...envCookie("stale"),
        osascript: osascript.path
      })
      yield* listSessions.pipe(Effect.provide(liveLayer(settings)))
      expect(fake.connectionCount).toBe(1)
      const scripts = osascript.scripts()
      expect(scripts).toHaveLength(2)
      expect(scripts[0]).toMatch(/if application "iTerm2" is running then/)
      expect(scripts[1]).toBe('tell application "iTerm2" to request cookie and key for app named "TermPilot"')
    })
  )

  it.live("gets a fresh AppleScript cookie for every connection (cookies are single-use)", () =>
    Effect.gen(function* () {
      const fake = yield* startFake({ cookies: ["cookie1", "cookie2"] })
      const osascript = writeFakeOsascript(fake.dir, { mode: "cookies" })
      const settings = settingsFor(fake.socketPath, fake.dir, { osascript: osascript.path })
      yield* Effect.gen(function* () {
        yield* listSessions
        fake.dropConnections()
        yield* Effect.sleep("50 millis")
        yield* listSessions
      }).pipe(Effect.provide(liveLayer(settings)))
      expect(fake.connectionCount).toBe(2)
    })
  )

  it.live("escapes the application path in AppleScript", () =>
    Effect.gen(function* () {
      const fake = yield* startFake({ cookies: ["cookie1"] })
      const osascript = writeFakeOsascript(fake.dir, { mode: "cookies" })
      const appName = '/Apps/My "iTerm"\\2.app'
      yield* listSessions.pipe(
        Effect.provide(
          liveLayer(settingsFor(fake.socketPath, fake.dir, { osascript: osascript.path, appName }))
        )
      )
      expect(osascript.scripts()[1]).toBe(
        'tell application "/Apps/My \\"iTerm\\"\\\\2.app" to request cookie and key for app named "TermPilot"'
      )
    })
  )

  it.live("AppleScript saying the Python API is disabled → api_disabled", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      const osascript = writeFakeOsascript(fake.dir, { mode: "disabled" })
      const settings = settingsFor(fake.socketPath, fake.dir, { osascript: osascript.path })
      const error = failureOf(yield* Effect.exit(listSessions.pipe(Effect.provide(liveLayer(settings)))))
      expect(error.reason).toBe("api_disabled")
      expect(error.message).toMatch(/Settings → General → Magic → Enable Python API/)
    })
  )

  it.live("AppleScript saying iTerm2 is not running → not_running, without asking for a cookie", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      const osascript = writeFakeOsascript(fake.dir, { mode: "cookies", running: false })
      const settings = settingsFor(fake.socketPath, fake.dir, { osascript: osascript.path })
      const error = failureOf(yield* Effect.exit(listSessions.pipe(Effect.provide(liveLayer(settings)))))
      expect(error.reason).toBe("not_running")
      expect(osascript.scripts()).toHaveLength(1)
    })
  )

  it.live("AppleScript syntax error -2741 → iTerm2 too old", () =>
    Effect.gen(function* () {
      const fake = yield* startFake()
      const osascript = writeFakeOsascript(fake.dir, { mode: "old" })
      const settings = settingsFor(fake.socketPath, fake.dir, { osascript: osascript.path })
      const error = failureOf(yield* Effect.exit(listSessions.pipe(Effect.provide(liveLayer(settings)))))
      expect(error.message).toMatch(/too old/)
    })
  )

  it.live("a missing socket → api_disabled with the enable-Python-API remedy", () =>
    Effect.gen(function* () {
      const fake = yield* startFake({ allowAll: true })
      const missing = join(fake.dir, "nope", "socket")
      const error = failureOf(
        yield* Effect.exit(listSessions.pipe(Effect.provide(liveLayer(settingsFor(missing, fake.dir)))))
      )
      expect(error.reason).toBe("api_disabled")
      expect(error.message).toMatch(/iTerm2 → Settings → General → Magic → Enable Python API/)
      expect(error.message).toMatch(/running/)
    })
  )

  it.live("a stale socket file (nothing listening) → not_running", () =>
    Effect.gen(function* () {
      const fake = yield* startFake({ allowAll: true })
      yield* Effect.promise(() => fake.stop())
      const error = failureOf(
        yield* Effect.exit(
          listSessions.pipe(Effect.provide(liveLayer(settingsFor(fake.socketPath, fake.dir))))
        )
      )
      expect(error.reason).toBe("not_running")
      // and it recovers once iTerm2 listens again
      yield* Effect.promise(() => fake.restart())
      yield* listSessions.pipe(Effect.provide(liveLayer(settingsFor(fake.socketPath, fake.dir))))
      expect(fake.connectionCount).toBe(1)
    })
  )
})
