/**
 * The transport to iTerm2 (Iterm2Transport): one live WebSocket that frames requests with ids,
 * correlates replies by id (in any order; each checked against its request, as
 * src/domain/iterm2/Envelope.ts says), hands id-less notifications to a sink, and on a dropped
 * socket fails every in-flight call with `disconnected` exactly once. A request left unanswered
 * makes the connection suspect (iTerm2 may have lost it, or may still act on it late): the owner
 * (Connection.ts) replaces a suspect connection.
 */
import { Effect, Exit } from "effect"
import type WebSocket from "ws"
import { replyProblem, requestKind, responseOf } from "../../../domain/iterm2/Envelope.js"
import type {
  ClientRequest,
  Notification,
  ServerOriginatedMessage,
  ServerResponse
} from "../../../generated/iterm2/Iterm2Messages.js"
import { iterm2Codec } from "./Codec.js"
import { Iterm2Error } from "./ConnectionService.js"
import type { OpenSocket } from "./Handshake.js"

export interface Iterm2Transport {
  readonly protocolVersion: readonly [number, number]
  readonly isOpen: () => boolean
  /**
   * A request was left without a reply (timed out or abandoned) and no reply of any kind has
   * arrived since: iTerm2 may not be answering on this connection.
   */
  readonly isSuspect: () => boolean
  /** Send one request and await its reply (validated: no `error`, the matching submessage). */
  readonly call: (request: ClientRequest, timeoutMs: number) => Effect.Effect<ServerResponse, Iterm2Error>
  /**
   * Send requests at once, in order, and await them together: each one's validated reply or its
   * own failure, in order. Never fails as a whole.
   */
  readonly callAll: (requests: ReadonlyArray<ClientRequest>, timeoutMs: number) => Effect.Effect<Replies>
  readonly close: Effect.Effect<void>
}

/** Each request's reply or failure, in the order the requests were given. */
export type Replies = ReadonlyArray<Exit.Exit<ServerResponse, Iterm2Error>>

export interface TransportHooks {
  readonly nextId: () => number
  readonly onNotification: (notification: Notification) => void
  readonly onClose: () => void
}

/** A reply checked against its request's kind: a protocol failure unless it is the matching one. */
export const validateReply = (
  kind: string | undefined,
  reply: ServerOriginatedMessage
): Exit.Exit<ServerResponse, Iterm2Error> => {
  const problem = replyProblem(kind, reply)
  return problem === null
    ? Exit.succeed(responseOf(reply))
    : Exit.fail(new Iterm2Error({ reason: "protocol", message: problem }))
}

/** Marks a failure whose request never left this process (the socket refused the write). */
export const NOT_SENT = { notSent: true } as const

export const isNotSent = (error: Iterm2Error): boolean =>
  typeof error.cause === "object" && error.cause !== null && "notSent" in error.cause

export const makeTransport = (socket: OpenSocket, hooks: TransportHooks): Iterm2Transport => {
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

  const closedError = () =>
    new Iterm2Error({ reason: "disconnected", message: "Connection to iTerm2 is closed.", cause: NOT_SENT })

  /**
   * Requests sent at once, in order, and awaited together, after at most `timeoutMs` for all (one
   * timer, no fiber per request). The wait can be interrupted even in an uninterruptible region,
   * as a transaction's begin needs; a request still pending when the wait ends (timed out or
   * abandoned) makes the connection suspect.
   */
  const callAll = (requests: ReadonlyArray<ClientRequest>, timeoutMs: number): Effect.Effect<Replies> =>
    Effect.interruptible(
      Effect.callback<Replies>((resume) => {
        const results: Array<Exit.Exit<ServerResponse, Iterm2Error> | undefined> = requests.map(
          () => undefined
        )
        const ids: Array<number> = []
        let left = requests.length
        let finished = false
        let timer: NodeJS.Timeout | undefined
        const finish = () => {
          if (finished) return
          finished = true
          clearTimeout(timer)
          resume(Effect.succeed(results as Replies))
        }
        const settle = (i: number, exit: Exit.Exit<ServerResponse, Iterm2Error>) => {
          if (finished || results[i] !== undefined) return
          results[i] = exit
          if (--left === 0) finish()
        }
        if (left === 0) finish()
        for (const [i, request] of requests.entries()) {
          if (!open || !writable) {
            settle(i, Exit.fail(closedError()))
            continue
          }
          const id = hooks.nextId()
          const kind = requestKind(request)
          ids[i] = id
          pending.set(id, (exit) => settle(i, Exit.isSuccess(exit) ? validateReply(kind, exit.value) : exit))
          ws.send(codec.encodeClient({ ...request, id }), { binary: true }, (error) => {
            if (error === undefined || error === null) return
            pending.delete(id)
            // The socket is dead even if its close event has not arrived yet: the next call
            // reconnects. Requests already in flight get their own write error or the close event.
            // Marked before settling: the caller may resume (and call again) within `settle`.
            writable = false
            const message = `Send to iTerm2 failed: ${error.message}`
            settle(i, Exit.fail(new Iterm2Error({ reason: "disconnected", message, cause: NOT_SENT })))
          })
        }
        if (finished) return
        timer = setTimeout(() => {
          requests.forEach((request, i) => {
            const id = ids[i]
            if (id !== undefined && pending.delete(id)) suspect = true
            const kind = requestKind(request) ?? "a request"
            const message = `iTerm2 did not answer ${kind} within ${timeoutMs} ms.`
            settle(i, Exit.fail(new Iterm2Error({ reason: "timeout", message })))
          })
        }, timeoutMs)
        // Abandoned by the caller: the requests still pending get no reply now.
        return Effect.sync(() => {
          finished = true
          clearTimeout(timer)
          for (const id of ids) if (id !== undefined && pending.delete(id)) suspect = true
        })
      })
    )

  /** One request: its reply, or a failure after `timeoutMs` (as `callAll` of one). */
  const call = (request: ClientRequest, timeoutMs: number) =>
    Effect.flatMap(callAll([request], timeoutMs), ([exit]) => exit ?? Exit.die("no reply slot"))

  return {
    protocolVersion: socket.protocolVersion,
    // A socket iTerm2 is closing is not open, even before its close event arrives.
    isOpen: () => open && writable && ws.readyState === ws.OPEN,
    isSuspect: () => suspect,
    call,
    callAll,
    close: Effect.sync(() => {
      ws.terminate()
      drop("closed by TermPilot")
    })
  }
}
