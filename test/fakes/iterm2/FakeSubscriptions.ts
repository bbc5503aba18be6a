/**
 * FakeSubscriptions — NotificationRequest bookkeeping as iTerm2 does it: one subscription per
 * (session, type, connection), the first request's prompt modes stick, global types ignore the
 * session, everything ends when the connection closes; plus fan-out of notifications.
 */
import type {
  Notification,
  NotificationRequest,
  NotificationStatus,
  NotificationType,
  PromptMonitorMode
} from "../../../src/generated/iterm2/Iterm2Messages.js"
import type { FakeConnectionHandle } from "./FakeProtocol.js"

/** Types whose `session` field iTerm2 ignores. */
const GLOBAL_TYPES: ReadonlySet<NotificationType> = new Set([
  "NOTIFY_ON_NEW_SESSION",
  "NOTIFY_ON_TERMINATE_SESSION",
  "NOTIFY_ON_LAYOUT_CHANGE",
  "NOTIFY_ON_FOCUS_CHANGE",
  "NOTIFY_ON_SERVER_ORIGINATED_RPC",
  "NOTIFY_ON_BROADCAST_CHANGE"
])

interface Subscription {
  readonly connection: FakeConnectionHandle
  readonly type: NotificationType
  /** A session GUID, "all", or "*" for global types. */
  readonly session: string
  readonly modes: ReadonlySet<PromptMonitorMode>
}

export class FakeSubscriptions {
  private readonly subs = new Map<string, Subscription>()

  /**
   * Applies a subscribe/unsubscribe. `resolveSession` maps the request's session ("active" → its
   * GUID) and returns undefined when it names no live session.
   */
  apply(
    request: NotificationRequest,
    connection: FakeConnectionHandle,
    resolveSession: (session: string) => string | undefined
  ): NotificationStatus {
    const type = request.notification_type
    if (request.subscribe === undefined || type === undefined) return "REQUEST_MALFORMED"
    let session = "*"
    if (!GLOBAL_TYPES.has(type)) {
      const requested = request.session ?? ""
      if (requested === "all") session = "all"
      else {
        const resolved = resolveSession(requested)
        if (resolved === undefined) return "SESSION_NOT_FOUND"
        session = resolved
      }
    }
    const key = `${connection.id}|${type}|${session}`
    if (!request.subscribe) return this.subs.delete(key) ? "OK" : "NOT_SUBSCRIBED"
    if (this.subs.has(key)) return "ALREADY_SUBSCRIBED"
    const modes: ReadonlySet<PromptMonitorMode> =
      request.prompt_monitor_request === undefined
        ? new Set(["PROMPT"])
        : new Set(request.prompt_monitor_request.modes)
    this.subs.set(key, { connection, type, session, modes })
    return "OK"
  }

  /** Drops every subscription of a closed connection. */
  dropConnection(connectionId: number): void {
    for (const [key, sub] of this.subs) if (sub.connection.id === connectionId) this.subs.delete(key)
  }

  /** Pushes to every subscriber of `type` (for `sessionId`, or any for global types) that wants `mode`. */
  publish(
    type: NotificationType,
    notification: Notification,
    sessionId?: string,
    mode?: PromptMonitorMode
  ): void {
    for (const sub of [...this.subs.values()]) {
      if (sub.type !== type || sub.connection.closed) continue
      if (
        sessionId !== undefined &&
        sub.session !== "*" &&
        sub.session !== "all" &&
        sub.session !== sessionId
      )
        continue
      if (mode !== undefined && !sub.modes.has(mode)) continue
      sub.connection.push(notification)
    }
  }

  /** Whether anyone is subscribed to `type` (lets callers skip building expensive payloads). */
  has(type: NotificationType): boolean {
    for (const sub of this.subs.values()) if (sub.type === type && !sub.connection.closed) return true
    return false
  }
}
