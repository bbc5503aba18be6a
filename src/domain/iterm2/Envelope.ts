/**
 * Envelope — iTerm2's request and reply envelopes, pure: the one submessage a request sets (its
 * kind, e.g. "get_buffer_request"), and what a reply to it must be: no `error`, and the matching
 * `_response` submessage. A reply that is not is a protocol failure, described here.
 */
import type {
  ClientRequest,
  ServerOriginatedMessage,
  ServerResponse
} from "../../generated/iterm2/Iterm2Messages.js"

/** The one submessage field a request sets, e.g. "get_buffer_request". */
export const requestKind = (request: ClientRequest): string | undefined =>
  Object.keys(request).find((key) => (request as Record<string, unknown>)[key] !== undefined)

/** A reply without its envelope (`id`, `notification`): the response submessages. */
export const responseOf = (reply: ServerOriginatedMessage): ServerResponse => {
  const { id: _id, notification: _notification, ...response } = reply
  return response
}

/**
 * What is wrong with `reply` to a request of `kind`: its `error` text, no submessage, or another
 * submessage than the matching one; null when it is the reply it should be.
 */
export const replyProblem = (kind: string | undefined, reply: ServerOriginatedMessage): string | null => {
  const response = responseOf(reply)
  if (response.error !== undefined) return `iTerm2 error: ${response.error}`
  const expected = kind?.replace(/_request$/, "_response")
  const present = Object.keys(response).filter((k) => (response as Record<string, unknown>)[k] !== undefined)
  if (present.length === 0) return `iTerm2 replied to ${kind ?? "a request"} without a result.`
  if (expected !== undefined && !present.includes(expected))
    return `iTerm2 replied to ${kind} with ${present.join(", ")} instead of ${expected}.`
  return null
}
