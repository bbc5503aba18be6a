/**
 * Handshake — opens one WebSocket to iTerm2's unix socket with exactly the headers iTerm2
 * checks (subprotocol api.iterm2.com, Origin ws://localhost/, x-iterm2-library-version, …: the
 * pure src/domain/iterm2/HandshakeHeaders.ts) and maps every way it can fail to a typed Iterm2Error
 * with a remedy.
 */
import { existsSync } from "node:fs"
import net from "node:net"
import { Duration, Effect } from "effect"
import WebSocket from "ws"
import {
  handshakeHeaders,
  libraryVersionOf,
  ORIGIN,
  parseProtocolVersion,
  SUBPROTOCOL
} from "../../../domain/iterm2/HandshakeHeaders.js"
import { packageVersion } from "../../../installation/PackageRoot.js"
import { type Credentials, enablePythonApiRemedy } from "./Auth.js"
import { Iterm2Error } from "./ConnectionService.js"

/** `<major>.<minor>` of TermPilot's own version, for `x-iterm2-library-version: node <v>`. */
const libraryVersion = libraryVersionOf(packageVersion())

export interface OpenSocket {
  readonly ws: WebSocket
  /** From X-iTerm2-Protocol-Version; [0, 0] when missing or malformed (as Python does). */
  readonly protocolVersion: readonly [number, number]
}

const socketMissing = (socketPath: string) =>
  new Iterm2Error({
    reason: "api_disabled",
    message: `iTerm2's API socket does not exist (${socketPath}). ${enablePythonApiRemedy}`
  })

const statusError = (status: number, hadCookie: boolean): Iterm2Error => {
  if (status === 401) {
    return new Iterm2Error({
      reason: "auth_denied",
      message:
        `iTerm2 refused the API connection (401 Unauthorized${hadCookie ? ", the cookie was not accepted" : ", no cookie"}). ` +
        "Allow TermPilot to ask iTerm2 for a cookie (System Settings → Privacy & Security → Automation: allow " +
        'control of iTerm2), or in iTerm2 → Settings → General → Magic enable "Allow all apps to connect".'
    })
  }
  if (status === 406) {
    return new Iterm2Error({
      reason: "protocol",
      message: "iTerm2 rejected this client's library version (406)."
    })
  }
  return new Iterm2Error({
    reason: "protocol",
    message: `iTerm2 rejected the API handshake (HTTP ${status}); this iTerm2 may be incompatible.`
  })
}

const socketError = (socketPath: string, error: NodeJS.ErrnoException): Iterm2Error => {
  switch (error.code) {
    case "ENOENT":
      return socketMissing(socketPath)
    case "ECONNREFUSED":
      return new Iterm2Error({
        reason: "not_running",
        message: `Nothing is listening on iTerm2's API socket (${socketPath}): iTerm2 is not running or its Python API was turned off. ${enablePythonApiRemedy}`,
        cause: error
      })
    case "EACCES":
    case "EPERM":
      return new Iterm2Error({
        reason: "auth_denied",
        message: `Permission denied on iTerm2's API socket (${socketPath}); iTerm2 must run as the same user.`,
        cause: error
      })
    default:
      return new Iterm2Error({
        reason: "disconnected",
        message: `Could not connect to iTerm2's API socket: ${error.message}`,
        cause: error
      })
  }
}

/** Connect and complete the WebSocket handshake within `timeoutMs`. */
export const openSocket = (options: {
  readonly socketPath: string
  readonly credentials: Credentials | undefined
  readonly timeoutMs: number
}): Effect.Effect<OpenSocket, Iterm2Error> => {
  const { socketPath, credentials, timeoutMs } = options
  const attempt = Effect.callback<OpenSocket, Iterm2Error>((resume) => {
    let version: readonly [number, number] = [0, 0]
    let settled = false
    const ws = new WebSocket(ORIGIN, SUBPROTOCOL, {
      createConnection: () => net.connect(socketPath),
      origin: ORIGIN,
      headers: handshakeHeaders(libraryVersion, credentials),
      perMessageDeflate: false,
      maxPayload: 0,
      followRedirects: false
    })
    const settle = (effect: Effect.Effect<OpenSocket, Iterm2Error>) => {
      if (settled) return
      settled = true
      resume(effect)
    }
    ws.on("upgrade", (res) => {
      version = parseProtocolVersion(res.headers["x-iterm2-protocol-version"])
    })
    ws.on("unexpected-response", (req, res) => {
      const status = res.statusCode ?? 0
      res.resume()
      req.destroy()
      ws.terminate()
      settle(Effect.fail(statusError(status, credentials !== undefined)))
    })
    ws.on("open", () => settle(Effect.succeed({ ws, protocolVersion: version })))
    ws.on("error", (error: NodeJS.ErrnoException) => {
      settle(
        Effect.fail(
          error.code !== undefined && error.syscall !== undefined
            ? socketError(socketPath, error)
            : new Iterm2Error({
                reason: "protocol",
                message: `iTerm2 API handshake failed: ${error.message}`,
                cause: error
              })
        )
      )
    })
    return Effect.sync(() => {
      settled = true
      ws.terminate()
    })
  })
  return Effect.suspend(() =>
    existsSync(socketPath) ? attempt : Effect.fail(socketMissing(socketPath))
  ).pipe(
    // Interruptible so that the timeout fires even for a caller in an uninterruptible region.
    Effect.interruptible,
    Effect.timeoutOrElse({
      duration: Duration.millis(timeoutMs),
      orElse: () =>
        Effect.fail(
          new Iterm2Error({
            reason: "timeout",
            message: `iTerm2 did not complete the API handshake within ${timeoutMs} ms.`
          })
        )
    })
  )
}
