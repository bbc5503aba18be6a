/**
 * TmuxReadiness — the fail-closed readiness verdict of one tmux pane, pure: tmux's pane flags
 * (dead, mode, alternate screen, input off, synchronize-panes) first, then the mark stream (last
 * counted mark, anything echoed since the prompt, doubt, an escape string left open), whether a
 * command of ours is in flight, and whether the shell that drew the prompt holds its terminal's
 * foreground (from /proc, where there is one).
 */
import type { Readiness } from "../../services/Terminal.js"
import { interactiveReason, type PaneFlags } from "./PaneFormat.js"
import type { StreamFacts } from "./PaneStream.js"

/**
 * `streaming`: the control client the marks came from is still attached (a pane whose stream was
 * interrupted may have missed bytes, so its last mark proves nothing). `foreground`: whether the
 * prompt's shell is the foreground process group of its terminal; null where that cannot be read.
 */
export const paneReadiness = (
  flags: PaneFlags,
  stream: StreamFacts,
  inFlight: boolean,
  streaming = true,
  foreground: boolean | null = null
): Readiness => {
  if (interactiveReason(flags) !== null) return "interactive"
  if (stream.lastMark === null && stream.doubt === null)
    return flags.tokens.length > 0 ? "unknown" : "shell_integration_required"
  if (inFlight) return "busy"
  if (!streaming) return "unknown"
  if (stream.held || stream.doubt !== null || stream.openString !== null) return "unknown"
  switch (stream.lastMark) {
    case "B":
      if (stream.echoedSinceB) return "input_pending"
      return foreground === false ? "busy" : "ready"
    case "A":
    case null:
      return "unknown"
    default:
      return "busy"
  }
}

/** A person-readable reason a pane with this readiness refuses a command; nothing was sent. */
export const refusalReason = (
  flags: PaneFlags,
  readiness: Readiness,
  stream?: StreamFacts,
  foreground: boolean | null = null
): string => {
  if (readiness === "unknown" && stream !== undefined) {
    if (stream.doubt !== null) return `${stream.doubt}; it takes commands again at its shell's next prompt`
    if (stream.openString !== null)
      return `its output is inside an escape string (${stream.openString}) that has not ended, so what it shows cannot be verified`
  }
  if (readiness === "busy" && stream?.lastMark === "B" && foreground === false)
    return "another program holds its terminal (the shell that drew the prompt is not in the foreground)"
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
