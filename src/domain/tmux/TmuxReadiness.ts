/**
 * TmuxReadiness — the fail-closed readiness verdict of one tmux pane, pure: tmux's pane flags
 * (dead, mode, alternate screen, input off, synchronize-panes) first, then the mark stream (last
 * counted mark, anything echoed since the prompt, doubt, an escape string left open), whether a
 * command of ours is in flight, and whether the shell that drew the prompt holds its terminal's
 * foreground (from /proc, where there is one); where nothing proves a prompt because a shell or
 * transport (ssh) without TermPilot's snippet holds the terminal, `shell_integration_required`
 * with what to install where (RemoteAdvice.ts), once its output showed it has no marks.
 */
import type { Readiness } from "../Session.js"
import { interactiveReason, type PaneFlags } from "./PaneFormat.js"
import type { StreamFacts } from "./PaneStream.js"
import { innerShellAdvice, innerShellName } from "./RemoteAdvice.js"

/** What the pane's processes say, beside its marks (read from /proc; null where it cannot be). */
export interface Evidence {
  /** At a prompt: whether its shell (a nested shell's: a transport such as ssh) holds the terminal. */
  readonly foreground: boolean | null
  /**
   * While the pane's shell runs something (or, before any mark, holds no terminal): the transport
   * or shell that holds the terminal, if one does.
   */
  readonly transport: string | null
  /** That transport's arguments (its /proc cmdline after the program), to name a host; null or absent when unread. */
  readonly transportArgs?: ReadonlyArray<string> | null
  /**
   * Before any counted mark: a line of output (a line feed) came from the pane since TermPilot
   * began watching it, and none of it carried a counted mark.
   */
  readonly unmarkedLine?: boolean
  /**
   * At a prompt: why what would prove it cannot be checked (a pane on another host, where this
   * machine's /proc shows nothing); the prompt is then `unknown`, never `ready`.
   */
  readonly unverified?: string
}

export const NO_EVIDENCE: Evidence = { foreground: null, transport: null }

/**
 * `streaming`: the control client the marks came from is still attached (a pane whose stream was
 * interrupted may have missed bytes, so its last mark proves nothing).
 */
export const paneReadiness = (
  flags: PaneFlags,
  stream: StreamFacts,
  inFlight: boolean,
  streaming = true,
  evidence: Evidence = NO_EVIDENCE
): Readiness => {
  if (interactiveReason(flags) !== null) return "interactive"
  if (stream.lastMark === null && stream.doubt === null) {
    if (flags.tokens.length === 0) return "shell_integration_required"
    if (inFlight || evidence.foreground !== false) return "unknown"
    // A program (not a shell or a transport to one) already ran there when watching began.
    if (evidence.transport === null) return "busy"
    // A shell or transport started before watching holds the terminal, and what it wrote since
    // (a line: Enter pressed there) came without a mark: whatever prompt it drew has no snippet.
    const unmarked = evidence.unmarkedLine === true && streaming && !stream.held && stream.openString === null
    return unmarked ? "shell_integration_required" : "unknown"
  }
  if (inFlight) return "busy"
  if (!streaming) return "unknown"
  if (stream.held || stream.doubt !== null || stream.openString !== null) return "unknown"
  switch (stream.lastMark) {
    case "B":
      if (stream.echoedSinceB) return "input_pending"
      if (evidence.unverified !== undefined) return "unknown"
      return evidence.foreground === false ? "busy" : "ready"
    case "A":
    case null:
      return "unknown"
    case "C":
      return evidence.transport !== null ? "shell_integration_required" : "busy"
    default:
      return "busy"
  }
}

/** A person-readable reason a pane with this readiness refuses a command; nothing was sent. */
export const refusalReason = (
  flags: PaneFlags,
  readiness: Readiness,
  stream?: StreamFacts,
  evidence: Evidence = NO_EVIDENCE
): string => {
  if (readiness === "unknown" && evidence.unverified !== undefined) return evidence.unverified
  if (readiness === "unknown" && stream !== undefined) {
    if (stream.doubt !== null) return `${stream.doubt}; it takes commands again at its shell's next prompt`
    if (stream.openString !== null)
      return `its output is inside an escape string (${stream.openString}) that has not ended, so what it shows cannot be verified`
  }
  if (readiness === "busy" && stream?.lastMark === null && evidence.foreground === false)
    return "a program that was already running when TermPilot began watching it holds its terminal"
  if (readiness === "busy" && stream?.lastMark === "B" && evidence.foreground === false)
    return stream.nestedUnder !== null
      ? "no program that carries a shell (ssh, a container exec, sudo) holds its terminal, so the nested prompt it shows is not verified"
      : "another program holds its terminal (the shell that drew the prompt is not in the foreground)"
  if (readiness === "shell_integration_required" && evidence.transport !== null)
    return innerShellAdvice(evidence.transport, evidence.transportArgs ?? null)
  if (readiness === "unknown" && stream?.lastMark === null && evidence.transport !== null)
    return `it runs ${innerShellName(evidence.transport, evidence.transportArgs ?? null)}, started before TermPilot started watching, and no prompt of its shell was seen since (README, "Prompts drawn before TermPilot started"); press Enter in the pane once: a shell with TermPilot's snippet then marks its next prompt, one without it is reported as shell_integration_required`
  switch (readiness) {
    case "interactive":
      return `it is not at a shell prompt: ${interactiveReason(flags) ?? "a program holds it"}`
    case "shell_integration_required":
      return "no shell-integration marks were seen from it; source TermPilot's tmux shell integration in that shell (termpilot shell-integration bash|zsh|fish)"
    case "unknown":
      return flags.tokens.length > 0
        ? 'its prompt was drawn before TermPilot started watching, and TermPilot could not prove it is idle with nothing typed (README, "Prompts drawn before TermPilot started"); press Enter in the pane once'
        : "its prompt is being drawn"
    case "busy":
      return "it is running a command"
    case "input_pending":
      return "it has text typed at the prompt that was not entered; ask the user to clear the command line"
    case "ready":
      return "it is ready"
  }
}
