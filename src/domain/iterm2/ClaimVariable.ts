/**
 * ClaimVariable — the session variable an iTerm2 claim lives in (src/domain/ClaimValue.ts is the
 * value), pure: the request that sets or clears it, and when the command a claim guards is over,
 * from the session's last prompt or from one of its prompt events (PromptNotice.ts), so that the
 * claim can be released.
 */
import type { ClientRequest, GetPromptResponse } from "../../generated/iterm2/Iterm2Messages.js"
import type { PromptEvent } from "../PromptEvent.js"

/** The session variable a claim lives in (iTerm2 lets clients set only `user.<name>` variables). */
export const CLAIM_VARIABLE = "user.termpilot_claim"

/** The request that sets the claim to `value`, or clears it (null). */
export const setClaimRequest = (sessionId: string, value: string | null): ClientRequest => ({
  variable_request: {
    session_id: sessionId,
    set: [{ name: CLAIM_VARIABLE, value: value === null ? "null" : JSON.stringify(value) }]
  }
})

/** A claim whose command has not started this long after the send is released (nothing runs). */
export const START_GRACE_MS = 5_000

/** The command a claim guards: where it was typed and when the claim was taken. */
export interface ClaimedCommand {
  readonly sessionId: string
  /** The prompt the command was typed at (null: iTerm2 gave it no id). */
  readonly promptId: string | null
  readonly takenAt: number
}

/** Whether the session's last prompt (undefined: none) shows the command over at `now`. */
export const overByPrompt = (
  command: ClaimedCommand,
  prompt: GetPromptResponse | undefined,
  now: number
): boolean => {
  const late = now - command.takenAt > START_GRACE_MS
  if (prompt === undefined) return late
  if (command.promptId !== null && prompt.unique_prompt_id !== command.promptId) return true
  switch (prompt.prompt_state) {
    case "FINISHED":
      return true
    case "RUNNING":
      return false
    default:
      return late
  }
}

/** Whether a prompt event of the session shows the command over: its end, the session's, or a newer prompt. */
export const overByPromptEvent = (command: ClaimedCommand, event: PromptEvent | undefined): boolean => {
  switch (event?._tag) {
    case "SessionEnded":
      return true
    case "CommandEnd":
      return command.promptId === null || event.promptId === command.promptId
    case "Prompt":
      return command.promptId === null || event.promptId !== command.promptId
    default:
      return false
  }
}
