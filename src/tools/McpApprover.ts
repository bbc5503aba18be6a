/**
 * The Approver of one MCP tools/call: an `elicitation/create` in form mode, sent through the
 * request's own `sendRequest` (so it belongs to the call that needs it), with an empty form — the
 * person's answer is the dialog's accept / decline / cancel. The wait is bounded by the caller
 * (the approval timeout); interrupting it aborts the request, which tells the client it was cancelled.
 */
import {
  type ClientCapabilities,
  ElicitResultSchema,
  type Implementation,
  type ServerRequest
} from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { MAX_APPROVAL_TIMEOUT_SECONDS } from "../domain/ApprovalPolicy.js"
import { type ApprovalAnswer, Approver, ElicitationFailed } from "../services/Approver.js"

/** What the SDK hands a request handler that this needs (a subset of RequestHandlerExtra). */
export interface ApprovalExtra {
  readonly sendRequest: (
    request: ServerRequest,
    schema: typeof ElicitResultSchema,
    options?: { readonly signal?: AbortSignal; readonly timeout?: number }
  ) => Promise<{ readonly action: ApprovalAnswer }>
}

/** The SDK's own timeout never ends the wait first: the caller's approval timeout does. */
const SDK_TIMEOUT_MS = (MAX_APPROVAL_TIMEOUT_SECONDS + 60) * 1000

/** Form mode is declared explicitly, or implied by an empty `elicitation` object (MCP). */
export const supportsFormElicitation = (capabilities: ClientCapabilities | undefined): boolean => {
  const elicitation = capabilities?.elicitation
  if (elicitation === undefined || elicitation === null) return false
  return elicitation.form !== undefined || elicitation.url === undefined
}

export const makeApprover = (
  client: {
    readonly capabilities: ClientCapabilities | undefined
    readonly info: Implementation | undefined
  },
  extra: ApprovalExtra
): Approver["Service"] =>
  Approver.of({
    clientName: client.info?.name ?? null,
    supported: supportsFormElicitation(client.capabilities),
    ask: (message) =>
      Effect.tryPromise({
        try: (signal) =>
          extra.sendRequest(
            {
              method: "elicitation/create",
              params: { mode: "form", message, requestedSchema: { type: "object", properties: {} } }
            },
            ElicitResultSchema,
            { signal, timeout: SDK_TIMEOUT_MS }
          ),
        catch: (cause) =>
          new ElicitationFailed({ detail: cause instanceof Error ? cause.message : String(cause) })
      }).pipe(Effect.map((result) => result.action))
  })
