/**
 * InFlightRequests — the runner's own view of its commands in flight: one per session (the claim
 * that keeps a second run_command out), and for each what interrupt_command and get_command_result
 * need to act on it: the prompt its submit returned, its event queue, and whether the watch saw it
 * start and end. Only the request holding a session's claim can change that session's entry.
 */
import { Effect, HashMap, Option, Queue, Ref } from "effect"
import type { PromptEvent } from "../../services/PromptTracker.js"
import type { RequestContext } from "./CommandResults.js"

export interface InFlight {
  readonly ctx: RequestContext
  /** The prompt the command was typed at, once sent (null: not sent yet, or the backend gave none). */
  readonly promptId: string | null
  /** The watch's events, once sent: events still queued mean this view is behind the terminal. */
  readonly events: Queue.Dequeue<PromptEvent> | null
  /** A CommandStart attributed to this command was seen. */
  readonly started: boolean
  /** The watch decided the outcome (the command ended, or it can no longer be followed). */
  readonly ended: boolean
}

/**
 * Whether the command may have started: the watch saw its start, or events are still queued that
 * the watch has not taken yet (its view is behind the terminal, so the backend's answer decides).
 */
export const mayHaveStarted = (entry: InFlight): Effect.Effect<boolean> =>
  entry.started || entry.events === null
    ? Effect.succeed(entry.started)
    : Effect.map(Queue.size(entry.events), (queued) => queued > 0)

export interface InFlightRequests {
  /** Claim the session for `ctx`'s request; the request already holding it otherwise. */
  readonly claim: (ctx: RequestContext) => Effect.Effect<Option.Option<string>>
  readonly release: (ctx: RequestContext) => Effect.Effect<void>
  readonly markSent: (
    ctx: RequestContext,
    promptId: string | null,
    events: Queue.Dequeue<PromptEvent>
  ) => Effect.Effect<void>
  readonly markStarted: (ctx: RequestContext) => Effect.Effect<void>
  readonly markEnded: (ctx: RequestContext) => Effect.Effect<void>
  /** The request's entry while it holds its session's claim. */
  readonly byRequest: (requestId: string) => Effect.Effect<Option.Option<InFlight>>
}

export const makeInFlightRequests: Effect.Effect<InFlightRequests> = Effect.gen(function* () {
  /** session id → our command in flight there. */
  const map = yield* Ref.make(HashMap.empty<string, InFlight>())

  const claim = (ctx: RequestContext) =>
    Ref.modify(map, (m): [Option.Option<string>, HashMap.HashMap<string, InFlight>] => {
      const holder = HashMap.get(m, ctx.request.sessionId)
      if (Option.isSome(holder)) return [Option.some(holder.value.ctx.requestId), m]
      const entry: InFlight = { ctx, promptId: null, events: null, started: false, ended: false }
      return [Option.none(), HashMap.set(m, ctx.request.sessionId, entry)]
    })

  /** Change the session's entry only while `ctx`'s request holds it. */
  const change = (ctx: RequestContext, f: (entry: InFlight) => InFlight | null) =>
    Ref.update(map, (m) => {
      const entry = HashMap.get(m, ctx.request.sessionId)
      if (Option.isNone(entry) || entry.value.ctx.requestId !== ctx.requestId) return m
      const next = f(entry.value)
      return next === null
        ? HashMap.remove(m, ctx.request.sessionId)
        : HashMap.set(m, ctx.request.sessionId, next)
    })

  return {
    claim,
    release: (ctx) => change(ctx, () => null),
    markSent: (ctx, promptId, events) => change(ctx, (e) => ({ ...e, promptId, events })),
    markStarted: (ctx) => change(ctx, (e) => ({ ...e, started: true })),
    markEnded: (ctx) => change(ctx, (e) => ({ ...e, ended: true })),
    byRequest: (requestId) =>
      Effect.map(Ref.get(map), (m) =>
        Option.fromNullishOr(Array.from(HashMap.values(m)).find((e) => e.ctx.requestId === requestId))
      )
  }
})
