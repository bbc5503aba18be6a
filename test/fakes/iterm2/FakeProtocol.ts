/**
 * The seam between the fake iTerm2's transport (FakeIterm2Server: handshake, framing, ids, faults)
 * and its world (sessions, prompts, request handlers). The server calls the handler once per
 * decoded request and replies with the request's id. `transaction_request` never reaches the
 * handler: the server answers it itself, as iTerm2 does (nested begin → ALREADY_IN_TRANSACTION,
 * other connections' requests wait until the end).
 */
import type {
  ClientRequest,
  Notification,
  ServerResponse
} from "../../../src/generated/iterm2/Iterm2Messages.js"

/** One accepted WebSocket connection, as the world sees it. */
export interface FakeConnectionHandle {
  readonly id: number
  /** Send an id-less notification to this connection (ignored once closed). */
  push(notification: Notification): void
  readonly closed: boolean
  onClose(listener: () => void): void
}

/** Answers requests. `undefined` = reply with the id and no submessage (as iTerm2 does for an invalid LineRange). */
export interface FakeRequestHandler {
  /**
   * When true the server forwards transaction requests to the handler, which then owns their
   * semantics (queueing other connections, holding the world's clock); otherwise the server
   * answers them itself.
   */
  readonly handlesTransactions?: boolean
  handle(
    request: ClientRequest,
    connection: FakeConnectionHandle
  ): Promise<ServerResponse | undefined> | ServerResponse | undefined
}
