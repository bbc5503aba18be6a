/**
 * Approver — how one MCP tool call asks the person behind its client for approval: an
 * `elicitation/create` (form mode) to that client. Optional, per call (like CallControl): without
 * it, or when the client did not declare the elicitation capability, the client cannot be asked;
 * then, as `approval.askIn` says, the person is asked in their own terminal
 * (`Terminal.askApproval`) or the action is refused (fail closed).
 */
import { Context, Data, type Effect } from "effect"

/** The person's answer, as the client reports it. */
export type ApprovalAnswer = "accept" | "decline" | "cancel"

/** The elicitation could not be made or got no usable answer (transport error, bad reply…). */
export class ElicitationFailed extends Data.TaggedError("ElicitationFailed")<{
  readonly detail: string
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
     * request (the client is told it was cancelled).
     */
    readonly ask: (message: string) => Effect.Effect<ApprovalAnswer, ElicitationFailed>
  }
>()("termpilot/Approver") {}
