/**
 * PaneEvidence — what /proc says about a tracked pane, gathered only when the mark stream leaves a
 * verdict open: at a verified prompt, whether its shell (or, for a nested shell without tmux, a
 * transport such as ssh) holds the terminal; before any mark, whether a program started earlier
 * holds it, and when that is a transport or shell (not one running a script), whether a line came
 * from the pane since without a mark; while the pane's shell runs something, whether that is a
 * transport or shell that opened a prompt without TermPilot's integration; each transport with its
 * arguments, for the refusal to name its host.
 */
import type { PaneFlags } from "../../../domain/tmux/PaneFormat.js"
import type { StreamFacts } from "../../../domain/tmux/PaneStream.js"
import { type Evidence, NO_EVIDENCE } from "../../../domain/tmux/TmuxReadiness.js"
import {
  argumentsOf,
  foregroundProgram,
  shellHoldsForeground,
  shellRunsScript,
  TRANSPORTS,
  transportHoldsForeground
} from "./Foreground.js"

/**
 * The foreground program when it carries a person to another shell (a transport, or a shell that
 * runs no script), with its arguments; null for any other program.
 */
const shellCarrier = (program: {
  readonly pid: number
  readonly name: string
}): { readonly name: string; readonly args: ReadonlyArray<string> | null } | null => {
  if (!TRANSPORTS.has(program.name)) return null
  const args = argumentsOf(program.pid, program.name)
  return shellRunsScript(program.name, args) ? null : { name: program.name, args }
}

/**
 * `lineSeen`: a line feed came from the pane since it was first seen (PaneEntry.lineSeen); before
 * any mark, with a transport or shell holding the terminal, that shell's output carried no mark.
 */
export const evidenceOf = (
  facts: StreamFacts,
  flags: PaneFlags,
  rootPid: number | null,
  lineSeen = false
): Evidence => {
  if (facts.lastMark === null && facts.doubt === null && rootPid !== null) {
    // Before any mark: a program that was already running when watching began holds the terminal,
    // unless it carries a person to another shell (that shell's prompt may come with marks).
    const foreground = shellHoldsForeground(rootPid, flags.panePid)
    const program = foreground === false ? foregroundProgram(rootPid, flags.panePid) : null
    const carrier = program === null ? null : shellCarrier(program)
    return carrier === null
      ? { foreground, transport: null }
      : { foreground, transport: carrier.name, transportArgs: carrier.args, unmarkedLine: lineSeen }
  }
  if (facts.lastMark === "B") {
    const foreground =
      facts.nestedUnder !== null
        ? transportHoldsForeground(facts.nestedUnder, flags.panePid)
        : shellHoldsForeground(facts.shellPid, flags.panePid)
    return { ...NO_EVIDENCE, foreground }
  }
  if (facts.lastMark === "C" && facts.nestedUnder === null) {
    const shell = facts.shellPid ?? flags.panePid
    const program = shell === null ? null : foregroundProgram(shell, flags.panePid)
    const carrier = program === null ? null : shellCarrier(program)
    return carrier === null
      ? NO_EVIDENCE
      : { ...NO_EVIDENCE, transport: carrier.name, transportArgs: carrier.args }
  }
  return NO_EVIDENCE
}

/** The shells TermPilot's snippet runs in, as tmux names a foreground program. */
const SNIPPET_SHELLS: ReadonlySet<string> = new Set(["bash", "zsh", "fish"])

/** tmux's `pane_current_command` as a program name (a login shell's `-bash` is `bash`); null when none. */
const programOf = (command: string | null | undefined): string | null => {
  if (command === null || command === undefined) return null
  const name = command.replace(/^-/, "").split("/").pop() ?? ""
  return name === "" ? null : name
}

/**
 * For a pane of a tmux server on another host: only what that tmux itself reports, its
 * `pane_current_command` (the program of the foreground process group of the pane's terminal);
 * nothing from this machine's /proc, where that host's pids name other processes or none. At a
 * verified prompt: a snippet shell in the foreground is what holds the terminal, any other program
 * means busy; a prompt of a nested shell (its carrier cannot be checked from here), or a pane for
 * which tmux names no program, stays `unknown`. Before any mark: a program other than a shell
 * holds the terminal (busy, or a transport that may carry a shell); a shell there proves nothing.
 */
export const remoteEvidenceOf = (facts: StreamFacts, flags: PaneFlags, lineSeen = false): Evidence => {
  const program = programOf(flags.currentCommand)
  if (facts.lastMark === null && facts.doubt === null) {
    if (program === null || SNIPPET_SHELLS.has(program) || SCRIPT_SHELL_NAMES.has(program))
      return { foreground: null, transport: null }
    return TRANSPORTS.has(program)
      ? { foreground: false, transport: program, transportArgs: null, unmarkedLine: lineSeen }
      : { foreground: false, transport: null }
  }
  if (facts.lastMark === "B" && facts.doubt === null) {
    if (facts.nestedUnder !== null)
      return {
        ...NO_EVIDENCE,
        unverified:
          "its prompt is a nested shell's on a tmux server on another host, and which program carries that shell cannot be checked from here, so the prompt is not verified"
      }
    if (program === null)
      return {
        ...NO_EVIDENCE,
        unverified:
          "it is on a tmux server on another host that names no foreground program for it, so what holds its terminal cannot be verified"
      }
    return { ...NO_EVIDENCE, foreground: SNIPPET_SHELLS.has(program) }
  }
  if (facts.lastMark === "C" && facts.nestedUnder === null && program !== null) {
    return TRANSPORTS.has(program) && !SCRIPT_SHELL_NAMES.has(program)
      ? { ...NO_EVIDENCE, transport: program, transportArgs: null }
      : NO_EVIDENCE
  }
  return NO_EVIDENCE
}

/** Shells (which, as a foreground program, may run a script or a prompt: not told apart from here). */
const SCRIPT_SHELL_NAMES: ReadonlySet<string> = new Set(["bash", "zsh", "sh", "dash", "ksh", "fish"])
