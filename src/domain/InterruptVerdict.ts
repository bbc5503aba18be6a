/**
 * InterruptVerdict — what an interrupt may do, as both backends' rules decide it
 * (src/domain/tmux/InterruptVerdict.ts for a tmux pane, src/domain/iterm2/InterruptVerdict.ts for an
 * iTerm2 session): send the one ETX, answer without sending (the command already ended, or never
 * started), or refuse with a stable error code.
 */
import type { ErrorCode } from "./Errors.js"

export type InterruptVerdict =
  | { readonly _tag: "Send" }
  | { readonly _tag: "Answer"; readonly check: "ended" | "not_started" }
  | { readonly _tag: "Refuse"; readonly code: ErrorCode; readonly reason: string }
