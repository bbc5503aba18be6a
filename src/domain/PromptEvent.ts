/**
 * PromptEvent — what shell integration reports of one session, as every backend delivers it: a
 * command started, a command ended with an exit status, a new prompt was drawn, the shell a command
 * ran in went away, the session ended, or the backend connection dropped. Pure model; the
 * PromptTracker contract (src/services/PromptTracker.ts) re-exports it.
 */
import type { ErrorCode } from "./Errors.js"

export type PromptEvent = (
  | { readonly _tag: "CommandStart"; readonly promptId: string | null; readonly command: string | null }
  | { readonly _tag: "CommandEnd"; readonly promptId: string | null; readonly exitCode: number }
  | { readonly _tag: "Prompt"; readonly promptId: string | null }
  /**
   * The shell the command typed at `promptId` went away before it reported that command's end: a
   * shell whose own command (ssh, a container exec, a nested shell) was already running when ours
   * was typed — the one that carried it — reported its end, with `exitCode` (null when it gave none).
   */
  | { readonly _tag: "ShellGone"; readonly promptId: string | null; readonly exitCode: number | null }
  | { readonly _tag: "SessionEnded" }
  /**
   * The backend connection dropped: events may have been missed; the outcome is unknown. `code`
   * is the backend's unavailable code (`iterm2_unavailable`, `tmux_unavailable`).
   */
  | { readonly _tag: "Lost"; readonly message: string; readonly code: ErrorCode }
) & {
  /**
   * The event's place in its session's order, where the backend numbers them (tmux): with
   * `Submission.after`, it tells the events that came before a command was typed from those after.
   */
  readonly seq?: number
}
