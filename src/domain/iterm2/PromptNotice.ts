/**
 * PromptNotice — what one iTerm2 notification says about one session's shell integration, pure:
 * a command started (with its command line), a command ended (with its exit status), a new prompt
 * drawn, or the session ended, as the backend-neutral PromptEvent (src/domain/PromptEvent.ts).
 * A notification about another session, or of another kind, says nothing. A PROMPT notification
 * also says where that prompt starts (iTerm2 3.5.0 on).
 */
import type { Coord, Notification } from "../../generated/iterm2/Iterm2Messages.js"
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

/**
 * Where the prompt a PROMPT notification about `sessionId` announces starts (its prompt, else its
 * command line), with its id; undefined for anything else, or when iTerm2 sent no position (before
 * 3.5.0 the notification carries no prompt).
 */
export const promptDrawnAt = (
  sessionId: string,
  n: Notification
): { readonly promptId: string; readonly start: Coord } | undefined => {
  const p = n.prompt_notification
  if (p === undefined || p.session !== sessionId || p.unique_prompt_id === undefined) return undefined
  const drawn = p.prompt?.prompt
  const start = drawn?.prompt_range?.start ?? drawn?.command_range?.start
  if (start?.y === undefined || (drawn?.unique_prompt_id ?? p.unique_prompt_id) !== p.unique_prompt_id)
    return undefined
  return { promptId: p.unique_prompt_id, start }
}
