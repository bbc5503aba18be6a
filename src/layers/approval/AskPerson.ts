/**
 * AskPerson — the two places ApprovalGate can ask the person, with one shape of answer: the MCP
 * client's dialog (the call's Approver: elicitation) or the person's own terminal
 * (`Terminal.askApproval`: a menu on their attached tmux client). Each gives the answer and who
 * gave it, or why nothing could be asked (then nothing was shown). Both wait until answered: the
 * gate bounds them, and interrupting either withdraws the question.
 */
import { Effect, Result } from "effect"
import type { ApprovalAnswer, Approver } from "../../services/Approver.js"
import type { Terminal } from "../../services/Terminal.js"

/** Where an approval was asked (the audit trail's `asked_in`). */
export type AskedIn = "client" | "terminal"

export interface Asked {
  readonly answer: ApprovalAnswer
  /** Who answered: the MCP client (its name) or the terminal's client (e.g. `tmux client /dev/pts/3`). */
  readonly answeredBy: string | null
}

/**
 * Why nothing was answered here: the question could not be asked (nothing was shown), or, on MCP
 * 2026-07-28, it went back to the client in an `input_required` result (its retry answers it).
 */
export interface NotAsked {
  readonly inputRequired: boolean
  readonly reason: string
}

/** The answer, or why there is none in this call. */
export type Asking = Effect.Effect<Result.Result<Asked, NotAsked>>

const notAsked = (reason: string): NotAsked => ({ inputRequired: false, reason })

/** In the MCP client's dialog (elicitation). */
export const askInClient = (approver: Approver["Service"], message: string): Asking =>
  approver.ask(message).pipe(
    Effect.map((answer) => Result.succeed({ answer, answeredBy: approver.clientName })),
    Effect.catch((failed) =>
      Effect.succeed(
        Result.fail(
          failed._tag === "ApprovalInputRequired"
            ? {
                inputRequired: true,
                reason: "the question went back to the client in an input_required result"
              }
            : notAsked(`the approval request failed (${failed.detail})`)
        )
      )
    )
  )

/** In the person's own terminal, where the session is shown. */
export const askInTerminal = (
  terminal: Terminal["Service"],
  sessionId: string,
  asker: string | null,
  message: string
): Asking =>
  terminal.askApproval(sessionId, { asker, message }).pipe(
    Effect.map(({ answer, answeredBy }) => Result.succeed({ answer, answeredBy })),
    Effect.catch((error) => Effect.succeed(Result.fail(notAsked(error.message))))
  )
