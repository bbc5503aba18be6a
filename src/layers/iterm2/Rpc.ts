/**
 * Rpc — one live WebSocket to iTerm2: frames requests with ids, correlates replies by id (in any
 * order), hands id-less notifications to a sink, and on a dropped socket fails every in-flight
 * call with `disconnected` exactly once. A request left unanswered makes the connection suspect
 * (iTerm2 may have lost it, or may still act on it late): the owner replaces a suspect connection.
 */
import { Effect, Exit } from "effect"
import type WebSocket from "ws"
import { Iterm2Error } from "../../services/Iterm2Connection.js"
import type {
  ClientRequest,
  Notification,
  ServerOriginatedMessage,
  ServerResponse
} from "../../services/Iterm2Messages.js"
import { iterm2Codec } from "./Codec.js"
import type { OpenSocket } from "./Handshake.js"

export interface RpcConnection {
  readonly protocolVersion: readonly [number, number]
  readonly isOpen: () => boolean
  /**
   * A request was left without a reply (timed out or abandoned) and no reply of any kind has
   * arrived since: iTerm2 may not be answering on this connection.
   */
  readonly isSuspect: () => boolean
  /** Send one request and await its reply (validated: no `error`, the matching submessage). */
  readonly call: (request: ClientRequest, timeoutMs: number) => Effect.Effect<ServerResponse, Iterm2Error>
  readonly close: Effect.Effect<void>
}

export interface RpcHooks {
  readonly nextId: () => number
  readonly onNotification: (notification: Notification) => void
  readonly onClose: () => void
}

/** The one submessage field a request sets, e.g. "get_buffer_request". */
export const requestKind = (request: ClientRequest): string | undefined =>
  Object.keys(request).find((key) => (request as Record<string, unknown>)[key] !== undefined)

/** Check a reply: `error` → protocol failure with its text; no or mismatched submessage → protocol failure. */
export const validateReply = (
  kind: string | undefined,
  reply: ServerOriginatedMessage
): Effect.Effect<ServerResponse, Iterm2Error> => {
  const { id: _id, notification: _notification, ...response } = reply
  if (response.error !== undefined) {
    return Effect.fail(new Iterm2Error({ reason: "protocol", message: `iTerm2 error: ${response.error}` }))
  }
  const expected = kind?.replace(/_request$/, "_response")
  const present = Object.keys(response).filter((k) => (response as Record<string, unknown>)[k] !== undefined)
  if (present.length === 0) {
    return Effect.fail(
      new Iterm2Error({
        reason: "protocol",
        message: `iTerm2 replied to ${kind ?? "a request"} without a result.`
      })
    )
  }
  if (expected !== undefined && !present.includes(expected)) {
    return Effect.fail(
      new Iterm2Error({
        reason: "protocol",
        message: `iTerm2 replied to ${kind} with ${present.join(", ")} instead of ${expected}.`
      })
    )
  }
  return Effect.succeed(response)
}

/** Marks a failure whose request never left this process (the socket refused the write). */
export const NOT_SENT = { notSent: true } as const

export const isNotSent = (error: Iterm2Error): boolean =>
  typeof error.cause === "object" && error.cause !== null && "notSent" in error.cause

export const makeRpc = (socket: OpenSocket, hooks: RpcHooks): RpcConnection => {
  const codec = iterm2Codec()
  const { ws } = socket
  /** Each in-flight request's settle function, by id: called once, with the reply or the failure. */
  const pending = new Map<number, (exit: Exit.Exit<ServerOriginatedMessage, Iterm2Error>) => void>()
  let open = true
  let writable = true
  let suspect = false

  const drop = (why: string) => {
    if (!open) return
    open = false
    const error = new Iterm2Error({ reason: "disconnected", message: `Connection to iTerm2 lost: ${why}` })
    const settles = [...pending.values()]
    pending.clear()
    for (const settle of settles) settle(Exit.fail(error))
    hooks.onClose()
  }

  ws.on("message", (data: WebSocket.RawData, isBinary: boolean) => {
    if (!isBinary) return
    let message: ServerOriginatedMessage
    try {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)
      message = codec.decodeServer(bytes)
    } catch {
      return
    }
    if (message.notification !== undefined) {
      hooks.onNotification(message.notification)
      return
    }
    if (message.id === undefined) return
    suspect = false // iTerm2 answers on this connection, if late
    const settle = pending.get(message.id)
    if (settle === undefined) return
    pending.delete(message.id)
    settle(Exit.succeed(message))
  })
  ws.on("close", (code, reason) => drop(`socket closed (${code}${reason.length > 0 ? ` ${reason}` : ""})`))
  ws.on("error", (error) => drop(error.message))

  /**
   * One request: its reply, or a failure after `timeoutMs` (one timer, no fiber per request). The
   * wait can be interrupted even in an uninterruptible region, as a transaction's begin needs; a
   * request still pending when the wait ends (timed out or abandoned) makes the connection suspect.
   */
  const call = (request: ClientRequest, timeoutMs: number) =>
    Effect.suspend(() => {
      if (!open || !writable) {
        return Effect.fail(
          new Iterm2Error({
            reason: "disconnected",
            message: "Connection to iTerm2 is closed.",
            cause: NOT_SENT
          })
        )
      }
      const id = hooks.nextId()
      const kind = requestKind(request)
      const reply = Effect.async<ServerOriginatedMessage, Iterm2Error>((resume) => {
        let settled = false
        const settle = (exit: Exit.Exit<ServerOriginatedMessage, Iterm2Error>) => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          resume(exit)
        }
        const timer = setTimeout(() => {
          if (pending.delete(id)) suspect = true
          settle(
            Exit.fail(
              new Iterm2Error({
                reason: "timeout",
                message: `iTerm2 did not answer ${kind ?? "a request"} within ${timeoutMs} ms.`
              })
            )
          )
        }, timeoutMs)
        pending.set(id, settle)
        ws.send(codec.encodeClient({ ...request, id }), { binary: true }, (error) => {
          if (error === undefined || error === null) return
          pending.delete(id)
          settle(
            Exit.fail(
              new Iterm2Error({
                reason: "disconnected",
                message: `Send to iTerm2 failed: ${error.message}`,
                cause: NOT_SENT
              })
            )
          )
          // The socket is dead even if its close event has not arrived yet: the next call
          // reconnects. Requests already in flight get their own write error or the close event.
          writable = false
        })
        // Abandoned by the caller: no reply yet.
        return Effect.sync(() => {
          settled = true
          clearTimeout(timer)
          if (pending.delete(id)) suspect = true
        })
      })
      return Effect.flatMap(Effect.interruptible(reply), (message) => validateReply(kind, message))
    })

  return {
    protocolVersion: socket.protocolVersion,
    // A socket iTerm2 is closing is not open, even before its close event arrives.
    isOpen: () => open && writable && ws.readyState === ws.OPEN,
    isSuspect: () => suspect,
    call,
    close: Effect.sync(() => {
      ws.terminate()
      drop("closed by TermPilot")
    })
  }
}
