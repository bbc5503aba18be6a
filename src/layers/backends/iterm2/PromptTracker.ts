/**
 * The PromptTracker over iTerm2 (Iterm2PromptTrackerLive): shell-integration events of one iTerm2
 * session. A watcher listens to the connection's events first, then makes sure of the session's
 * prompt subscription, which every watcher of that session shares (PromptSessions.ts: a request
 * only for the first watcher on a connection). Each prompt notification is noted (where the prompt
 * starts) before it is handed on, so whoever takes the Prompt event finds its start known.
 */
import { Effect, Layer, Queue } from "effect"
import { promptEventOf } from "../../../domain/iterm2/PromptNotice.js"
import { type PromptEvent, PromptTracker } from "../../../services/PromptTracker.js"
import { exactSessionId } from "./Calls.js"
import { Iterm2Connection, type Iterm2Event } from "./ConnectionService.js"
import { Iterm2PromptSessions, Iterm2PromptSessionsLive } from "./PromptSessions.js"

/** The PromptEvent an iTerm2 event means for `sessionId`, if any (a dropped connection: Lost). */
const toPromptEvent = (sessionId: string, event: Iterm2Event): PromptEvent | undefined =>
  event._tag === "Disconnected"
    ? {
        _tag: "Lost",
        message: "The connection to iTerm2 dropped while waiting for the command.",
        code: "iterm2_unavailable"
      }
    : promptEventOf(sessionId, event.notification)

/** Event queue bound per watched session; a watcher that falls this far behind drops the oldest. */
const WATCH_CAPACITY = 256

const Iterm2PromptTrackerOwn = Layer.effect(
  PromptTracker,
  Effect.gen(function* () {
    const conn = yield* Iterm2Connection
    const sessions = yield* Iterm2PromptSessions

    const watch = (sessionId: string) =>
      Effect.gen(function* () {
        yield* exactSessionId(sessionId)
        // Before the subscription is looked at: a connection that drops from here on is seen as
        // Disconnected, so a subscription known for it never silently covers a newer one.
        const events = yield* conn.events
        const out = yield* Effect.acquireRelease(Queue.sliding<PromptEvent>(WATCH_CAPACITY), Queue.shutdown)
        // Interruptible even when watch is called from an uninterruptible region (the runner's send
        // phase): the scope's close must be able to stop the forwarder.
        yield* Effect.forkScoped(
          Effect.interruptible(
            Effect.forever(
              Queue.take(events).pipe(
                Effect.flatMap((event) => {
                  const mapped = toPromptEvent(sessionId, event)
                  if (mapped === undefined) return Effect.void
                  if (event._tag === "Notification") sessions.note(sessionId, event.notification)
                  return Queue.offer(out, mapped)
                })
              )
            )
          )
        )
        yield* sessions.subscribe(sessionId)
        return out as Queue.Dequeue<PromptEvent>
      }).pipe(Effect.withSpan("Iterm2PromptTracker.watch"))

    return PromptTracker.of({ watch })
  })
)

/** The PromptTracker over iTerm2, with the backend's shared prompt subscriptions. */
export const Iterm2PromptTrackerLive = Iterm2PromptTrackerOwn.pipe(Layer.provide(Iterm2PromptSessionsLive))
