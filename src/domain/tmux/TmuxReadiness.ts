/**
 * TmuxReadiness — the fail-closed readiness verdict of one tmux pane, pure: tmux's pane flags
 * (dead, mode, alternate screen, input off, synchronize-panes) first, then the mark stream
 * (last counted mark, anything echoed since the prompt) and whether a command of ours is in flight.
 */
import type { Readiness } from "../../services/Terminal.js"
import { interactiveReason, type PaneFlags } from "./PaneFormat.js"
import type { StreamFacts } from "./PaneStream.js"

/**
 * `streaming`: the control client the marks came from is still attached (a pane whose stream was
 * interrupted may have missed bytes, so its last mark proves nothing).
 */
export const paneReadiness = (
  flags: PaneFlags,
  stream: StreamFacts,
  inFlight: boolean,
  streaming = true
): Readiness => {
  if (interactiveReason(flags) !== null) return "interactive"
  if (stream.lastMark === null) return flags.tokens.length > 0 ? "unknown" : "shell_integration_required"
  if (inFlight) return "busy"
  if (!streaming) return "unknown"
  if (stream.held) return "unknown"
  switch (stream.lastMark) {
    case "B":
      return stream.echoedSinceB ? "input_pending" : "ready"
    case "A":
      return "unknown"
    default:
      return "busy"
  }
}

/** A person-readable reason a pane with this readiness refuses a command; nothing was sent. */
export const refusalReason = (flags: PaneFlags, readiness: Readiness): string => {
  switch (readiness) {
    case "interactive":
      return `it is not at a shell prompt: ${interactiveReason(flags) ?? "a program holds it"}`
    case "shell_integration_required":
      return "no shell-integration marks were seen from it; source TermPilot's tmux shell integration in that shell (termpilot shell-integration bash|zsh|fish)"
    case "unknown":
      return flags.tokens.length > 0
        ? "its prompt was drawn before TermPilot started watching; press Enter in the pane once"
        : "its prompt is being drawn"
    case "busy":
      return "it is running a command"
    case "input_pending":
      return "it has text typed at the prompt that was not entered; ask the user to clear the command line"
    case "ready":
      return "it is ready"
  }
}
