/**
 * PromptNotice — what one iTerm2 notification says about one session's shell integration, pure:
 * a command started (with its command line), a command ended (with its exit status), a new prompt
 * drawn, or the session ended, as the backend-neutral PromptEvent (src/domain/PromptEvent.ts).
 * A notification about another session, or of another kind, says nothing.
 */
import type { Notification } from "../../generated/iterm2/Iterm2Messages.js"
import type { PromptEvent } from "../PromptEvent.js"

/** The PromptEvent a notification means for `sessionId`, if any. */
export const promptEventOf = (sessionId: string, n: Notification): PromptEvent | undefined => {
  if (n.terminate_session_notification?.session_id === sessionId) return { _tag: "SessionEnded" }
  const p = n.prompt_notification
  if (p === undefined || p.session !== sessionId) return undefined
  const promptId = p.unique_prompt_id ?? null
  if (p.command_start !== undefined) {
    return { _tag: "CommandStart", promptId, command: p.command_start.command ?? null }
  }
  if (p.command_end !== undefined) {
    return { _tag: "CommandEnd", promptId, exitCode: p.command_end.status ?? 0 }
  }
  return { _tag: "Prompt", promptId }
}
