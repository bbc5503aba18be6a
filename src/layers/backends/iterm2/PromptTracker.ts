/**
 * The PromptTracker over iTerm2 (Iterm2PromptTrackerLive): shell-integration events of one iTerm2
 * session. It listens to the connection's events first, then subscribes to NOTIFY_ON_PROMPT (all
 * three modes in one request, since iTerm2 keeps the first request's modes) and
 * NOTIFY_ON_TERMINATE_SESSION, both sent at once.
 */
import { Effect, Layer, Queue } from "effect"
import { promptEventOf } from "../../../domain/iterm2/PromptNotice.js"
import type { NotificationRequest, NotificationResponse } from "../../../generated/iterm2/Iterm2Messages.js"
import { fail, sessionNotFound, type TermPilotError } from "../../../services/Errors.js"
import { type PromptEvent, PromptTracker } from "../../../services/PromptTracker.js"
import { exactSessionId, replyField, unavailable } from "./Calls.js"
import { Iterm2Connection, type Iterm2Event } from "./ConnectionService.js"

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

export const Iterm2PromptTrackerLive = Layer.effect(
  PromptTracker,
  Effect.gen(function* () {
    const conn = yield* Iterm2Connection

    /** A subscription's reply: fine when made (or already there), else why not. */
    const subscribed =
      (sessionId: string) =>
      (reply: NotificationResponse): Effect.Effect<void, TermPilotError> => {
        const status = reply.status ?? "OK"
        if (status === "OK" || status === "ALREADY_SUBSCRIBED") return Effect.void
        if (status === "SESSION_NOT_FOUND") return Effect.fail(sessionNotFound(sessionId))
        return Effect.fail(
          fail(
            "shell_integration_required",
            `iTerm2 refused to report command completion for session '${sessionId}' (${status}); nothing was sent.`
          )
        )
      }

    /** The subscriptions sent at once (one round trip); the first refusal, in order, fails. */
    const subscribe = (
      sessionId: string,
      requests: ReadonlyArray<NotificationRequest>
    ): Effect.Effect<void, TermPilotError> =>
      Effect.flatMap(
        Effect.mapError(
          conn.callAll(requests.map((request) => ({ notification_request: request }))),
          unavailable
        ),
        (replies) =>
          Effect.forEach(
            replies,
            (reply) => Effect.flatMap(replyField(reply, "notification_response"), subscribed(sessionId)),
            { discard: true }
          )
      )

    const watch = (sessionId: string) =>
      Effect.gen(function* () {
        yield* exactSessionId(sessionId)
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
                  return mapped === undefined ? Effect.void : Queue.offer(out, mapped)
                })
              )
            )
          )
        )
        yield* subscribe(sessionId, [
          {
            session: sessionId,
            subscribe: true,
            notification_type: "NOTIFY_ON_PROMPT",
            prompt_monitor_request: { modes: ["PROMPT", "COMMAND_START", "COMMAND_END"] }
          },
          { session: "all", subscribe: true, notification_type: "NOTIFY_ON_TERMINATE_SESSION" }
        ])
        return out as Queue.Dequeue<PromptEvent>
      }).pipe(Effect.withSpan("Iterm2PromptTracker.watch"))

    return PromptTracker.of({ watch })
  })
)
