/**
 * InterruptVerdict — whether one iTerm2 session may get the ETX that interrupts the command typed
 * at one prompt, pure: from the session's last prompt, read inside the transaction the ETX would be
 * sent in. Only that very prompt, RUNNING, is a command to interrupt; a newer prompt, or FINISHED,
 * means it ended; EDITING, that the shell has not started it; a prompt without an id or a state
 * cannot be verified, and refuses. The verdict has the tmux backend's shape
 * (src/domain/tmux/InterruptVerdict.ts).
 */
import type { GetPromptResponse } from "../../generated/iterm2/Iterm2Messages.js"
import type { InterruptVerdict } from "../InterruptVerdict.js"

/** End of text, what the terminal's Ctrl-C sends; the line discipline turns it into SIGINT. */
export const ETX = "\x03"

/** What the session's last prompt (undefined: none) allows for the command typed at `promptId`. */
export const interruptVerdict = (
  prompt: GetPromptResponse | undefined,
  promptId: string
): InterruptVerdict => {
  if (prompt?.unique_prompt_id === undefined || prompt.prompt_state === undefined)
    return {
      _tag: "Refuse",
      code: "command_not_running",
      reason: "reports no shell-integration prompt, so TermPilot cannot verify which command is running"
    }
  // A newer prompt is drawn: ours is over (ended, or aborted without an exit status).
  if (prompt.unique_prompt_id !== promptId) return { _tag: "Answer", check: "ended" }
  switch (prompt.prompt_state) {
    case "RUNNING":
      return { _tag: "Send" }
    case "FINISHED":
      return { _tag: "Answer", check: "ended" }
    case "EDITING":
      return { _tag: "Answer", check: "not_started" }
  }
}
