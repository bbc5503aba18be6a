/**
 * The live Iterm2Connection (Iterm2ConnectionLive; the contract is ConnectionService.ts): connects
 * lazily (and again after a drop) with fresh credentials each time (Auth.ts, Handshake.ts),
 * retries a refused env cookie once via AppleScript, fans notifications out to every `events`
 * subscriber, and serialises transactions. A connection (Transport.ts) on which a request was left
 * unanswered, with no reply since, is replaced by the next call. Requests made inside a
 * transaction go on the connection that began it, or fail: never on another one.
 */
import { Cause, Context, Effect, Exit, Layer, Option, Queue, Redacted, Ref, Result, Semaphore } from "effect"
import type { ClientRequest, ServerResponse } from "../../../generated/iterm2/Iterm2Messages.js"
import { AppConfig } from "../../../services/AppConfig.js"
import { type Credentials, requestCookieViaAppleScript } from "./Auth.js"
import { Iterm2Connection, Iterm2Error, type Iterm2Event } from "./ConnectionService.js"
import { openSocket } from "./Handshake.js"
import { type Iterm2Transport, isNotSent, makeTransport } from "./Transport.js"

/** The transaction a fiber's requests belong to: its connection, while it is open (`active`). */
const InTransaction = Context.Reference<{ readonly rpc: Iterm2Transport; active: boolean } | undefined>(
  "termpilot/Iterm2Connection/InTransaction",
  { defaultValue: () => undefined }
)

export const Iterm2ConnectionLive: Layer.Layer<Iterm2Connection, never, AppConfig> = Layer.effect(
  Iterm2Connection,
  Effect.gen(function* () {
    const { iterm2: settings } = yield* AppConfig
    /** Every `events` subscriber's queue; each event is offered to all of them as it happens. */
    const subscribers = new Set<Queue.Queue<Iterm2Event>>()
    const publish = (event: Iterm2Event) => {
      for (const queue of subscribers) Queue.offerUnsafe(queue, event)
    }
    let lastId = 0
    /** Each connection's number (`connectionId`), in the order they were opened. */
    const numbers = new WeakMap<Iterm2Transport, number>()
    let lastNumber = 0
    /** ITERM2_COOKIE / ITERM2_KEY: single-use, taken by the first connection attempt. */
    const envCredentials = yield* Ref.make<Credentials | undefined>(
      Option.match(settings.cookie, {
        onNone: () => undefined,
        onSome: (cookie) => ({
          cookie: Redacted.value(cookie),
          key: Option.getOrUndefined(Option.map(settings.key, Redacted.value)),
          source: "env" as const
        })
      })
    )
    const current = yield* Ref.make<Iterm2Transport | undefined>(undefined)
    const connectLock = yield* Semaphore.make(1)
    const transactionLock = yield* Semaphore.make(1)

    const appleScript = requestCookieViaAppleScript({
      osascript: settings.osascript,
      appName: settings.appName,
      timeoutMs: settings.connectTimeoutMs
    })

    const handshake = (credentials: Credentials | undefined) =>
      openSocket({ socketPath: settings.socketPath, credentials, timeoutMs: settings.connectTimeoutMs })

    /** AppleScript credentials, or none (with the reason kept for a final 401 message). */
    const viaAppleScript = appleScript.pipe(
      Effect.map((outcome) =>
        outcome._tag === "Credentials"
          ? { credentials: outcome.credentials, why: undefined }
          : { credentials: undefined, why: outcome.why }
      )
    )

    const explain401 = (why: string | undefined) => (error: Iterm2Error) =>
      error.reason === "auth_denied" && why !== undefined
        ? new Iterm2Error({ reason: error.reason, message: `${error.message} (No cookie: ${why}.)` })
        : error

    const authenticateAndOpen = Effect.gen(function* () {
      const fromEnv = yield* Ref.getAndSet(envCredentials, undefined)
      if (fromEnv !== undefined) {
        const first = yield* Effect.result(handshake(fromEnv))
        if (Result.isSuccess(first)) return first.success
        if (first.failure.reason !== "auth_denied") return yield* first.failure
        yield* Effect.logDebug("iTerm2 refused the ITERM2_COOKIE; asking AppleScript for a fresh one")
      }
      const { credentials, why } = yield* viaAppleScript
      return yield* handshake(credentials).pipe(Effect.mapError(explain401(why)))
    })

    const connect = Effect.gen(function* () {
      const socket = yield* authenticateAndOpen
      const rpc = makeTransport(socket, {
        nextId: () => ++lastId,
        onNotification: (notification) => {
          publish({ _tag: "Notification", notification })
        },
        onClose: () => {
          publish({ _tag: "Disconnected" })
        }
      })
      numbers.set(rpc, ++lastNumber)
      yield* Effect.logDebug(`connected to iTerm2 (protocol ${socket.protocolVersion.join(".")})`)
      return rpc
    })

    const reconnect: Effect.Effect<Iterm2Transport, Iterm2Error> = connectLock.withPermits(1)(
      Effect.gen(function* () {
        const existing = yield* Ref.get(current)
        if (existing?.isOpen() && !existing.isSuspect()) return existing
        // A request timed out and nothing has come back since: do not queue behind it again.
        if (existing?.isSuspect()) {
          yield* Effect.logDebug("iTerm2 left a request unanswered; reconnecting")
          yield* existing.close
        }
        const fresh = yield* connect
        yield* Ref.set(current, fresh)
        return fresh
      })
    )

    /** The open connection without taking the lock (every request asks); the lock only to replace it. */
    const anyConnection: Effect.Effect<Iterm2Transport, Iterm2Error> = Effect.flatMap(
      Ref.get(current),
      (existing) =>
        existing?.isOpen() === true && !existing.isSuspect() ? Effect.succeed(existing) : reconnect
    )

    /**
     * Inside a transaction's body, its own connection, or a failure once that one dropped (or was
     * left suspect): iTerm2 ended the transaction with it, and a request sent on a new connection
     * would run outside it (a claim written, or text typed, after a check that no longer holds).
     */
    const connection: Effect.Effect<Iterm2Transport, Iterm2Error> = Effect.flatMap(
      Effect.service(InTransaction),
      (pinned) => {
        if (pinned === undefined || !pinned.active) return anyConnection
        return pinned.rpc.isOpen() && !pinned.rpc.isSuspect()
          ? Effect.succeed(pinned.rpc)
          : Effect.fail(
              new Iterm2Error({
                reason: "disconnected",
                message:
                  "The connection to iTerm2 dropped inside a transaction (iTerm2 ended the transaction); its remaining requests were not sent."
              })
            )
      }
    )

    yield* Effect.addFinalizer(() =>
      Ref.get(current).pipe(Effect.flatMap((rpc) => (rpc === undefined ? Effect.void : rpc.close)))
    )

    const callAllOnce = (requests: ReadonlyArray<ClientRequest>, options?: { readonly timeoutMs?: number }) =>
      Effect.flatMap(connection, (rpc) =>
        rpc.callAll(requests, options?.timeoutMs ?? settings.requestTimeoutMs)
      )

    /**
     * A request the dying socket refused to write never reached iTerm2: it is retried once on a
     * fresh connection. Never a SendText: text is typed at most once, whatever happens.
     */
    const callAll = (requests: ReadonlyArray<ClientRequest>, options?: { readonly timeoutMs?: number }) =>
      Effect.gen(function* () {
        const first = yield* callAllOnce(requests, options)
        const retry = requests.flatMap((request, i) => {
          const exit = first[i]
          const error =
            exit === undefined || Exit.isSuccess(exit) ? undefined : Cause.findErrorOption(exit.cause)
          return error?._tag === "Some" && isNotSent(error.value) && request.send_text_request === undefined
            ? [i]
            : []
        })
        if (retry.length === 0) return first
        const again = yield* callAllOnce(
          retry.map((i) => requests[i]!),
          options
        )
        const merged = [...first]
        retry.forEach((i, k) => {
          merged[i] = again[k]!
        })
        return merged
      })

    const call = (request: ClientRequest, options?: { readonly timeoutMs?: number }) =>
      Effect.flatMap(callAll([request], options), ([exit]) => exit ?? Exit.die("no reply slot"))

    const transactionStatus = (what: string, response: ServerResponse) => {
      const status = response.transaction_response?.status ?? "OK"
      return status === "OK"
        ? Effect.void
        : Effect.fail(
            new Iterm2Error({ reason: "protocol", message: `iTerm2 transaction ${what} failed: ${status}` })
          )
    }

    /** End the transaction on the connection that began it, or make it certain by closing that. */
    const endTransaction = (rpc: Iterm2Transport) =>
      // A dropped connection has already ended it; one with a request left unanswered would only
      // queue the end behind it: closing ends the transaction at once.
      !rpc.isOpen()
        ? Effect.void
        : rpc.isSuspect()
          ? rpc.close
          : rpc.call({ transaction_request: { begin: false } }, settings.requestTimeoutMs).pipe(
              Effect.flatMap((ended) => transactionStatus("end", ended)),
              Effect.catch((error) =>
                Effect.andThen(
                  Effect.logWarning(`iTerm2 transaction end: ${error.message}; reconnecting`),
                  rpc.close
                )
              )
            )

    /**
     * Waiting for the lock and for the begin can be interrupted even when the caller cannot be (the
     * runner's send phase); `body` runs with the caller's interruptibility, and nothing after it
     * re-enables interruption, so a body that finished is never turned into an interruption.
     */
    const transaction = <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | Iterm2Error, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.andThen(
          Effect.interruptible(transactionLock.take(1)),
          Effect.acquireUseRelease(
            Effect.gen(function* () {
              const rpc = yield* connection
              // A begin that timed out (or was abandoned) may still open the transaction when it
              // arrives, and a transaction left open freezes iTerm2 for every client: when the begin
              // does not clearly succeed, close the connection, which ends any transaction it holds.
              yield* Effect.interruptible(
                rpc.call({ transaction_request: { begin: true } }, settings.requestTimeoutMs)
              ).pipe(
                Effect.flatMap((begun) => transactionStatus("begin", begun)),
                Effect.onError(() => rpc.close)
              )
              return rpc
            }),
            (rpc) => {
              // Requests of the body (and of fibers it forks) go on `rpc` while the transaction lasts.
              const pinned = { rpc, active: true }
              return restore(Effect.provideService(body, InTransaction, pinned)).pipe(
                Effect.ensuring(Effect.sync(() => (pinned.active = false)))
              )
            },
            endTransaction
          ).pipe(Effect.ensuring(transactionLock.release(1)))
        )
      )

    return Iterm2Connection.of({
      call,
      callAll,
      events: Effect.acquireRelease(
        Effect.flatMap(Queue.unbounded<Iterm2Event>(), (queue) =>
          Effect.sync(() => {
            subscribers.add(queue)
            return queue
          })
        ),
        (queue) =>
          Effect.andThen(
            Effect.sync(() => subscribers.delete(queue)),
            Queue.shutdown(queue)
          )
      ).pipe(Effect.map(Queue.asDequeue)),
      transaction,
      connectionId: Effect.map(connection, (rpc) => numbers.get(rpc) ?? 0),
      protocolVersion: Effect.map(connection, (rpc) => rpc.protocolVersion)
    })
  })
)
