/**
 * PromptTracker — shell-integration events per session: a command started, a command ended with
 * an exit status, a new prompt was drawn, the shell a command ran in went away, the session ended. Subscribe before sending so that no
 * event can be missed.
 */
import { Context, type Effect, type Queue, type Scope } from "effect"
import type { ErrorCode, TermPilotError } from "./Errors.js"

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

export class PromptTracker extends Context.Service<
  PromptTracker,
  {
    /**
     * Events of one session from now until the scope closes. Fails with `session_not_found` or
     * `shell_integration_required` when the session cannot be watched.
     */
    readonly watch: (
      sessionId: string
    ) => Effect.Effect<Queue.Dequeue<PromptEvent>, TermPilotError, Scope.Scope>
  }
>()("termpilot/PromptTracker") {}
