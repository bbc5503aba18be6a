/**
 * PaneEvidence — what /proc says about a tracked pane, gathered only when the mark stream leaves a
 * verdict open: at a verified prompt, whether its shell (or, for a nested shell without tmux, a
 * transport such as ssh) holds the terminal; before any mark, whether a program started earlier
 * holds it; while the pane's shell runs something, whether that is
 * a transport or shell that opened a prompt without TermPilot's integration; and `via`.
 */
import type { PaneFlags } from "../../domain/tmux/PaneFormat.js"
import type { StreamFacts } from "../../domain/tmux/PaneStream.js"
import { type Evidence, NO_EVIDENCE } from "../../domain/tmux/TmuxReadiness.js"
import {
  foregroundProgram,
  shellHoldsForeground,
  TRANSPORTS,
  transportHoldsForeground
} from "./Foreground.js"

export const evidenceOf = (facts: StreamFacts, flags: PaneFlags, rootPid: number | null): Evidence => {
  if (facts.lastMark === null && facts.doubt === null && rootPid !== null) {
    // Before any mark: a program that was already running when watching began holds the terminal,
    // unless it carries a person to another shell (that shell's prompt may come with marks).
    const foreground = shellHoldsForeground(rootPid, flags.panePid)
    const program = foreground === false ? foregroundProgram(rootPid, flags.panePid) : null
    return { foreground, transport: program !== null && TRANSPORTS.has(program.name) ? program.name : null }
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
    return {
      ...NO_EVIDENCE,
      transport: program !== null && TRANSPORTS.has(program.name) ? program.name : null
    }
  }
  return NO_EVIDENCE
}
