/**
 * Approver — how one MCP tool call asks the person behind its client for approval: an
 * `elicitation/create` (form mode) to that client on the legacy protocol eras, or on MCP 2026-07-28
 * the same form carried back in an `input_required` result, answered by the client's retry.
 * Optional, per call (like CallControl): without it, or when the client did not declare the
 * elicitation capability, the client cannot be asked; then, as `approval.askIn` says, the person
 * is asked in their own terminal (`Terminal.askApproval`) or the action is refused (fail closed).
 */
import { Context, Data, type Effect } from "effect"

/**
 * The person's answer, as the client reports it; `expired` when it came back (in a 2026-07-28
 * retry) only after the approval timeout, so it no longer counts.
 */
export type ApprovalAnswer = "accept" | "decline" | "cancel" | "expired"

/** The elicitation could not be made or got no usable answer (transport error, bad reply…). */
export class ElicitationFailed extends Data.TaggedError("ElicitationFailed")<{
  readonly detail: string
}> {}

/**
 * The question went back to the client in an `input_required` result (MCP 2026-07-28): this call
 * ends here with nothing sent, and the client's retry carries the person's answer.
 */
export class ApprovalInputRequired extends Data.TaggedError("ApprovalInputRequired")<{
  readonly message: string
}> {}

export class Approver extends Context.Service<
  Approver,
  {
    /** The client's name (from `initialize`), for the audit trail; null when it gave none. */
    readonly clientName: string | null
    /** Whether the client declared form-mode elicitation. */
    readonly supported: boolean
    /**
     * Show `message` in the client's dialog and wait for the answer. Interrupting it withdraws the
     * request (the client is told it was cancelled). On MCP 2026-07-28 it fails with
     * ApprovalInputRequired instead of waiting, unless this call is the retry that answers it.
     */
    readonly ask: (
      message: string
    ) => Effect.Effect<ApprovalAnswer, ElicitationFailed | ApprovalInputRequired>
  }
>()("termpilot/Approver") {}
