/**
 * Rpc — one live WebSocket to iTerm2: frames requests with ids, correlates replies by id (in any
 * order), hands id-less notifications to a sink, and on a dropped socket fails every in-flight
 * call with `disconnected` exactly once. A request left unanswered makes the connection suspect
 * (iTerm2 may have lost it, or may still act on it late): the owner replaces a suspect connection.
 */
import { Deferred, Duration, Effect, Exit } from "effect"
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
  const pending = new Map<number, Deferred.Deferred<ServerOriginatedMessage, Iterm2Error>>()
  let open = true
  let writable = true
  let suspect = false

  const drop = (why: string) => {
    if (!open) return
    open = false
    const error = new Iterm2Error({ reason: "disconnected", message: `Connection to iTerm2 lost: ${why}` })
    for (const deferred of pending.values()) Deferred.unsafeDone(deferred, Exit.fail(error))
    pending.clear()
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
    const deferred = pending.get(message.id)
    if (deferred === undefined) return
    pending.delete(message.id)
    Deferred.unsafeDone(deferred, Exit.succeed(message))
  })
  ws.on("close", (code, reason) => drop(`socket closed (${code}${reason.length > 0 ? ` ${reason}` : ""})`))
  ws.on("error", (error) => drop(error.message))

  const call = (request: ClientRequest, timeoutMs: number) =>
    Effect.gen(function* () {
      if (!open || !writable) {
        return yield* new Iterm2Error({
          reason: "disconnected",
          message: "Connection to iTerm2 is closed.",
          cause: NOT_SENT
        })
      }
      const id = hooks.nextId()
      const kind = requestKind(request)
      const deferred = yield* Deferred.make<ServerOriginatedMessage, Iterm2Error>()
      pending.set(id, deferred)
      const bytes = codec.encodeClient({ ...request, id })
      ws.send(bytes, { binary: true }, (error) => {
        if (error !== undefined && error !== null) {
          pending.delete(id)
          Deferred.unsafeDone(
            deferred,
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
        }
      })
      // Interruptible for the timeout's sake only: a caller in an uninterruptible region (the
      // runner's send phase, a transaction's begin) must still see the timeout fire, and it does not
      // make the caller itself interruptible.
      const reply = yield* Deferred.await(deferred).pipe(
        Effect.interruptible,
        Effect.timeoutFail({
          duration: Duration.millis(timeoutMs),
          onTimeout: () =>
            new Iterm2Error({
              reason: "timeout",
              message: `iTerm2 did not answer ${kind ?? "a request"} within ${timeoutMs} ms.`
            })
        }),
        // Still pending here means abandoned (timed out, or the caller gave up): no reply yet.
        Effect.ensuring(
          Effect.sync(() => {
            if (pending.delete(id)) suspect = true
          })
        )
      )
      return yield* validateReply(kind, reply)
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
