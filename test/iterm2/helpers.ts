/**
 * Shared test helpers for the iTerm2 wire layer: an AppConfig for a fake iTerm2, a fake
 * `osascript` executable, a raw-socket handshake client, and a small echoing request handler.
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import net from "node:net"
import { join } from "node:path"
import { Cause, Effect, Exit, Layer, Option, Redacted } from "effect"
import { afterEach } from "vitest"
import { Iterm2ConnectionLive } from "../../src/layers/backends/iterm2/Connection.js"
import { Iterm2Connection, type Iterm2Error } from "../../src/layers/backends/iterm2/ConnectionService.js"
import type { Iterm2Settings } from "../../src/services/AppConfig.js"
import { FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import type { FakeRequestHandler } from "../fakes/iterm2/FakeProtocol.js"
import { appConfigFor } from "../support/AppConfigFixture.js"

/** Answers get_property with the requested name (so replies can be matched to requests). */
export const echoHandler: FakeRequestHandler = {
  handle: (request) => {
    if (request.get_property_request !== undefined) {
      return {
        get_property_response: { status: "OK", json_value: JSON.stringify(request.get_property_request.name) }
      }
    }
    if (request.list_sessions_request !== undefined) return { list_sessions_response: {} }
    if (request.notification_request !== undefined) return { notification_response: { status: "OK" } }
    return undefined
  }
}

export const settingsFor = (
  socketPath: string,
  dir: string,
  overrides: Partial<Iterm2Settings> = {}
): Iterm2Settings => ({
  socketPath,
  cookie: Option.none(),
  key: Option.none(),
  osascript: join(dir, "no-such-osascript"),
  appName: "iTerm2",
  requestTimeoutMs: 3_000,
  connectTimeoutMs: 3_000,
  ...overrides
})

/** A starter of echoing fakes for a test file; every fake started is closed after each test. */
export const fakeStarter = () => {
  const fakes: Array<FakeIterm2Server> = []
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((fake) => fake.close()))
  })
  return () =>
    Effect.promise(async () => {
      const fake = await FakeIterm2Server.start({ handler: echoHandler, allowAll: true })
      fakes.push(fake)
      return fake
    })
}

/** Provide the live connection to `fake`. */
export const withLive =
  (fake: FakeIterm2Server, requestTimeoutMs = 3_000) =>
  <A, E>(effect: Effect.Effect<A, E, Iterm2Connection>) =>
    Effect.provide(effect, liveLayer(settingsFor(fake.socketPath, fake.dir, { requestTimeoutMs })))

/** A get_property request, answered by echoHandler with the name it asked for. */
export const getProperty = (name: string, timeoutMs?: number) =>
  Effect.flatMap(Iterm2Connection, (c) =>
    c.call(
      { get_property_request: { session_id: "s", name } },
      timeoutMs === undefined ? undefined : { timeoutMs }
    )
  ).pipe(Effect.map((r) => r.get_property_response?.json_value))

/** The typed failure of an exit (throws if it is anything else). */
export const failureOf = <A>(exit: Exit.Exit<A, Iterm2Error>): Iterm2Error => {
  const reasons = Exit.isFailure(exit) ? exit.cause.reasons : []
  const only = reasons.length === 1 ? reasons[0] : undefined
  if (only === undefined || !Cause.isFailReason(only))
    throw new Error(`expected a typed failure: ${String(exit)}`)
  return only.error
}

export const envCookie = (cookie: string, key?: string): Partial<Iterm2Settings> => ({
  cookie: Option.some(Redacted.make(cookie)),
  key: key === undefined ? Option.none() : Option.some(Redacted.make(key))
})

export const liveLayer = (settings: Iterm2Settings): Layer.Layer<Iterm2Connection> =>
  Iterm2ConnectionLive.pipe(Layer.provide(appConfigFor(settings)))

/**
 * Write a fake `osascript` into `dir`. It logs each script it gets on stdin to `<dir>/osascript.log`,
 * answers the "is running" probe with `running`, and the cookie request per `mode`:
 * "cookies" → "cookie<N> key<N>" (N counts calls from 1), "disabled" → error 1, "old" → error -2741.
 */
export const writeFakeOsascript = (
  dir: string,
  options: { readonly running?: boolean; readonly mode: "cookies" | "disabled" | "old" }
): { readonly path: string; readonly scripts: () => Array<string> } => {
  const path = join(dir, "osascript")
  const log = join(dir, "osascript.log")
  const counter = join(dir, "osascript.count")
  writeFileSync(log, "")
  writeFileSync(counter, "0")
  const answer = {
    cookies: `n=$(( $(cat '${counter}') + 1 )); echo "$n" > '${counter}'; echo "cookie$n key$n"`,
    disabled: `echo "execution error: The Python API is not enabled. (1)" >&2; exit 1`,
    old: `echo "syntax error: Expected end of line but found identifier. (-2741)" >&2; exit 1`
  }[options.mode]
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `[ "$1" = "-" ] || { echo "expected the script on stdin" >&2; exit 2; }`,
      "script=$(cat)",
      `printf '%s\\n---\\n' "$script" >> '${log}'`,
      'case "$script" in',
      `  *"is running"*) echo ${options.running === false ? "no" : "yes"} ;;`,
      `  *"request cookie and key"*) ${answer} ;;`,
      '  *) echo "unexpected script" >&2; exit 3 ;;',
      "esac",
      ""
    ].join("\n")
  )
  chmodSync(path, 0o755)
  return {
    path,
    scripts: () =>
      readFileSync(log, "utf8")
        .split("\n---\n")
        .filter((s) => s.trim() !== "")
  }
}

export const validHeaders = (): Record<string, string> => ({
  Host: "localhost",
  Upgrade: "websocket",
  Connection: "Upgrade",
  "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
  "Sec-WebSocket-Version": "13",
  "Sec-WebSocket-Protocol": "api.iterm2.com",
  Origin: "ws://localhost/",
  "x-iterm2-library-version": "python 2.21",
  "x-iterm2-disable-auth-ui": "true"
})

/** Send a raw handshake and return everything the server wrote before closing (bounded). */
export const rawHandshake = (
  socketPath: string,
  headers: Record<string, string | undefined>,
  requestLine = "GET / HTTP/1.1"
): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(socketPath)
    let received = ""
    const timer = setTimeout(() => {
      socket.destroy()
      resolve(received)
    }, 2_000)
    socket.setEncoding("latin1")
    socket.on("data", (chunk: string) => {
      received += chunk
      if (received.startsWith("HTTP/1.1 101") && received.includes("\r\n\r\n")) {
        clearTimeout(timer)
        socket.destroy()
        resolve(received)
      }
    })
    socket.on("close", () => {
      clearTimeout(timer)
      resolve(received)
    })
    socket.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    const lines = Object.entries(headers)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([name, value]) => `${name}: ${value}`)
    socket.write(`${requestLine}\r\n${lines.join("\r\n")}\r\n\r\n`)
  })
