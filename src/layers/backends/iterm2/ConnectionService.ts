/**
 * The Iterm2Connection contract, the only door to iTerm2's API socket (live: Connection.ts):
 * handshake and authentication, request/reply correlation by id, a stream of notifications,
 * reconnect after a drop, and a timeout on every request. Messages cross this boundary as plain
 * objects (src/generated/iterm2/Iterm2Messages.ts); protobuf stays behind it (Codec.ts).
 */
import { Context, type Effect, type Exit, type Queue, Schema, type Scope } from "effect"
import type { ClientRequest, Notification, ServerResponse } from "../../../generated/iterm2/Iterm2Messages.js"

export const Iterm2FailureReason = Schema.Literals([
  "not_running",
  "api_disabled",
  "auth_denied",
  "disconnected",
  "timeout",
  "protocol"
])
export type Iterm2FailureReason = typeof Iterm2FailureReason.Type

/** Why iTerm2 could not be reached or did not answer, with a message a person can act on. */
export class Iterm2Error extends Schema.TaggedError<Iterm2Error>()("Iterm2Error", {
  reason: Iterm2FailureReason,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

/** What a notification subscriber receives: a notification, or word that the connection dropped. */
export type Iterm2Event =
  | { readonly _tag: "Notification"; readonly notification: Notification }
  | { readonly _tag: "Disconnected" }

export class Iterm2Connection extends Context.Service<
  Iterm2Connection,
  {
    /**
     * Send one request (exactly one submessage set) and await the reply with the same id,
     * connecting or reconnecting first when needed. Fails with `timeout` after the request timeout
     * and with `protocol` on an `error` reply or a reply without a submessage.
     */
    readonly call: (
      request: ClientRequest,
      options?: { readonly timeoutMs?: number }
    ) => Effect.Effect<ServerResponse, Iterm2Error>
    /**
     * Send several requests at once and await them together (no fiber per request): each one's
     * reply, or its own failure as `call` would give it, in order. Fails as a whole only when no
     * connection can be had.
     */
    readonly callAll: (
      requests: ReadonlyArray<ClientRequest>,
      options?: { readonly timeoutMs?: number }
    ) => Effect.Effect<ReadonlyArray<Exit.Exit<ServerResponse, Iterm2Error>>, Iterm2Error>
    /**
     * Every event from now until the scope closes. A dropped connection is delivered as
     * `Disconnected` (server-side subscriptions are gone with it).
     */
    readonly events: Effect.Effect<Queue.Dequeue<Iterm2Event>, never, Scope.Scope>
    /**
     * Run `body` inside one iTerm2 transaction (begin … end), serialised with other transactions
     * of this process; the end is sent even when `body` fails or is interrupted.
     */
    readonly transaction: <A, E, R>(body: Effect.Effect<A, E, R>) => Effect.Effect<A, E | Iterm2Error, R>
    /**
     * The number of the connection requests go on now (connects if needed; inside a transaction,
     * its own). Each new connection gets a new number, so what iTerm2 keeps per connection (a
     * notification subscription) is known to hold only while this number stays the same.
     */
    readonly connectionId: Effect.Effect<number, Iterm2Error>
    /** `[major, minor]` from X-iTerm2-Protocol-Version at the last handshake (connects if needed). */
    readonly protocolVersion: Effect.Effect<readonly [number, number], Iterm2Error>
  }
>()("termpilot/Iterm2Connection") {}
