/**
 * The Approver of one MCP tools/call, in the protocol era the client speaks:
 * - legacy eras (the `initialize` handshake): an `elicitation/create` in form mode, sent through the
 *   request's own `send` (so it belongs to the call that needs it), with an empty form — the
 *   person's answer is the dialog's accept / decline / cancel. The wait is bounded by the caller
 *   (the approval timeout); interrupting it aborts the request, which tells the client it was
 *   cancelled.
 * - 2026-07-28: no server-to-client requests, so `ask` records the question and fails with
 *   ApprovalInputRequired (the server answers the call with an `input_required` result carrying the
 *   same form), unless the call is the client's retry carrying the answer to exactly this message.
 */
import type { ClientCapabilities, ElicitResult, Implementation } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import { MAX_APPROVAL_TIMEOUT_SECONDS } from "../domain/ApprovalPolicy.js"
import {
  type ApprovalAnswer,
  ApprovalInputRequired,
  Approver,
  ElicitationFailed
} from "../services/Approver.js"
import { messageDigest } from "./ApprovalState.js"

/** The form every approval shows: no fields, the answer is the dialog's own action. */
export const approvalForm = (message: string) =>
  ({ mode: "form", message, requestedSchema: { type: "object", properties: {} } }) as const

/** What the SDK hands a request handler that this needs (a subset of ctx.mcpReq). */
export interface ApprovalExtra {
  readonly send: (
    request: { readonly method: "elicitation/create"; readonly params: ReturnType<typeof approvalForm> },
    options?: { readonly signal?: AbortSignal; readonly timeout?: number }
  ) => Promise<Pick<ElicitResult, "action">>
}

/** The client as far as the approver needs it: its capabilities and its name. */
export interface ApprovalClient {
  readonly capabilities: ClientCapabilities | undefined
  readonly info: Implementation | undefined
}

/** The SDK's own timeout never ends the wait first: the caller's approval timeout does. */
const SDK_TIMEOUT_MS = (MAX_APPROVAL_TIMEOUT_SECONDS + 60) * 1000

/** Form mode is declared explicitly, or implied by an empty `elicitation` object (MCP). */
export const supportsFormElicitation = (capabilities: ClientCapabilities | undefined): boolean => {
  const elicitation = capabilities?.elicitation
  if (elicitation === undefined || elicitation === null) return false
  return elicitation.form !== undefined || elicitation.url === undefined
}

/** Legacy eras: ask with `elicitation/create` and wait for the answer. */
export const makeApprover = (client: ApprovalClient, extra: ApprovalExtra): Approver["Service"] =>
  Approver.of({
    clientName: client.info?.name ?? null,
    supported: supportsFormElicitation(client.capabilities),
    ask: (message) =>
      Effect.tryPromise({
        try: (signal) =>
          extra.send(
            { method: "elicitation/create", params: approvalForm(message) },
            { signal, timeout: SDK_TIMEOUT_MS }
          ),
        catch: (cause) =>
          new ElicitationFailed({ detail: cause instanceof Error ? cause.message : String(cause) })
      }).pipe(Effect.map((result) => result.action))
  })

/** The answer a 2026-07-28 retry carries, checked against its request state (ApprovalState). */
export interface RetryAnswer {
  readonly messageDigest: string
  readonly action: ApprovalAnswer
}

export interface RoundTripApprover {
  readonly approver: Approver["Service"]
  /** The message asked in this round, when the call ended to ask it (an `input_required` result). */
  readonly asked: () => string | undefined
}

/**
 * 2026-07-28: the retry's answer counts only for the very message it was given for; any other
 * question (or none answered yet) goes back to the client.
 */
export const makeRoundTripApprover = (
  client: ApprovalClient,
  answer: RetryAnswer | undefined
): RoundTripApprover => {
  let asked: string | undefined
  const approver = Approver.of({
    clientName: client.info?.name ?? null,
    supported: supportsFormElicitation(client.capabilities),
    ask: (message) =>
      Effect.suspend(() => {
        if (answer !== undefined && answer.messageDigest === messageDigest(message))
          return Effect.succeed(answer.action)
        asked = message
        return Effect.fail(new ApprovalInputRequired({ message }))
      })
  })
  return { approver, asked: () => asked }
}
