/**
 * What the iTerm2 backend shares about sessions' prompt notifications (Iterm2PromptSessionsLive,
 * one instance under both the PromptTracker and the Terminal):
 *
 * - ONE prompt subscription per session and connection: NOTIFY_ON_PROMPT (all three modes in one
 *   request, since iTerm2 keeps the first request's modes) and NOTIFY_ON_TERMINATE_SESSION, sent
 *   at once by the first watcher of the session and reused by every later one while that same
 *   connection lasts. iTerm2 keeps a subscription until its connection closes or its session ends,
 *   and TermPilot never unsubscribes, so the fact that it was made holds exactly that long: a new
 *   connection (Iterm2Connection.connectionId) or the session's end forgets it.
 * - where each prompt starts, as its PROMPT notification reported it: reading an ended command's
 *   output then needs no request for the next prompt (Read.ts). Positions are absolute; a bounded
 *   number of the newest are kept.
 */
import { Context, Effect, Layer } from "effect"
import { promptDrawnAt } from "../../../domain/iterm2/PromptNotice.js"
import type {
  Coord,
  Notification,
  NotificationRequest,
  NotificationResponse
} from "../../../generated/iterm2/Iterm2Messages.js"
import { fail, sessionNotFound, type TermPilotError } from "../../../services/Errors.js"
import { replyField, unavailable } from "./Calls.js"
import { Iterm2Connection } from "./ConnectionService.js"

/** Prompt starts kept (the newest); an older one is asked for again when needed. */
const STARTS_KEPT = 1_024

export class Iterm2PromptSessions extends Context.Service<
  Iterm2PromptSessions,
  {
    /**
     * Makes sure this connection is subscribed to `sessionId`'s prompt notifications (a request
     * only the first time per connection). Fails with `session_not_found`, or
     * `shell_integration_required` when iTerm2 refuses.
     */
    readonly subscribe: (sessionId: string) => Effect.Effect<void, TermPilotError>
    /** Takes note of a notification about `sessionId` (a prompt's start, the session's end). */
    readonly note: (sessionId: string, notification: Notification) => void
    /** Where prompt `promptId` of `sessionId` starts, if its PROMPT notification was seen. */
    readonly promptStart: (sessionId: string, promptId: string) => Coord | undefined
  }
>()("termpilot/Iterm2PromptSessions") {}

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

const subscriptionRequests = (sessionId: string): ReadonlyArray<NotificationRequest> => [
  {
    session: sessionId,
    subscribe: true,
    notification_type: "NOTIFY_ON_PROMPT",
    prompt_monitor_request: { modes: ["PROMPT", "COMMAND_START", "COMMAND_END"] }
  },
  { session: "all", subscribe: true, notification_type: "NOTIFY_ON_TERMINATE_SESSION" }
]

export const makeIterm2PromptSessions = (
  conn: Iterm2Connection["Service"]
): Iterm2PromptSessions["Service"] => {
  /** The connection each session's subscription was made on. */
  const subscriptions = new Map<string, number>()
  /** Prompt starts by `session|prompt`, oldest first. */
  const starts = new Map<string, Coord>()

  /** Both requests sent at once (one round trip); the first refusal, in order, fails. */
  const request = (sessionId: string): Effect.Effect<void, TermPilotError> =>
    Effect.flatMap(
      Effect.mapError(
        conn.callAll(subscriptionRequests(sessionId).map((r) => ({ notification_request: r }))),
        unavailable
      ),
      (replies) =>
        Effect.forEach(
          replies,
          (reply) => Effect.flatMap(replyField(reply, "notification_response"), subscribed(sessionId)),
          { discard: true }
        )
    )

  // Recorded under the connection counted before the request: had the request gone on a newer
  // one, the older is closed for good and its number never matches again. Two watchers starting
  // together may both ask; iTerm2 answers the second ALREADY_SUBSCRIBED.
  const subscribe = (sessionId: string) =>
    Effect.gen(function* () {
      const connection = yield* Effect.mapError(conn.connectionId, unavailable)
      if (subscriptions.get(sessionId) === connection) return
      yield* request(sessionId)
      subscriptions.set(sessionId, connection)
    })

  const note = (sessionId: string, notification: Notification) => {
    if (notification.terminate_session_notification?.session_id === sessionId) {
      subscriptions.delete(sessionId)
      return
    }
    const drawn = promptDrawnAt(sessionId, notification)
    if (drawn === undefined) return
    const key = `${sessionId}|${drawn.promptId}`
    starts.delete(key)
    starts.set(key, drawn.start)
    if (starts.size > STARTS_KEPT) {
      const oldest = starts.keys().next()
      if (oldest.done !== true) starts.delete(oldest.value)
    }
  }

  return Iterm2PromptSessions.of({
    subscribe,
    note,
    promptStart: (sessionId, promptId) => starts.get(`${sessionId}|${promptId}`)
  })
}

export const Iterm2PromptSessionsLive = Layer.effect(
  Iterm2PromptSessions,
  Effect.map(Iterm2Connection, makeIterm2PromptSessions)
)
