/**
 * MarkLedger — where each shell of a pane is in its numbered prompts, pure: per announced token,
 * the prompt number (`n=`) and letter of its last counted mark. A shell's marks move forward: the
 * marks of one prompt come as A, B (A and B again on a redraw), C (once per line run), D, and the
 * next prompt has a greater number. A mark that goes back (an older number, or a letter its prompt
 * is past) can only be output replaying an earlier prompt's marks — `cat` or `tail -f` of a
 * recording of this very pane — and is refused. It also answers whether a prompt is newer than
 * the moment doubt arose, which is what a verified prompt after doubt must be, and which shells
 * were running a command (their last mark a C) when TermPilot typed one of its own. A mark's
 * letter (`letterOf`) is defined here.
 */

import type { Osc133Mark } from "../Osc133.js"

export type MarkLetter = "A" | "B" | "C" | "D"

const LETTER: Readonly<Record<Osc133Mark["_tag"], MarkLetter>> = {
  PromptStart: "A",
  CommandLineStart: "B",
  CommandExecuted: "C",
  CommandFinished: "D"
}

/** The letter of a mark (`133;A` … `133;D`). */
export const letterOf = (mark: Osc133Mark): MarkLetter => LETTER[mark._tag]

/** Which letters may follow which within one prompt. */
const NEXT: Readonly<Record<MarkLetter, ReadonlySet<MarkLetter>>> = {
  A: new Set(["A", "B", "D"]),
  B: new Set(["A", "B", "C", "D"]),
  C: new Set(["C", "D"]),
  D: new Set()
}

/** Shells remembered per pane (a pane announces one token per shell it ever started). */
const KEPT_SHELLS = 256

export class MarkLedger {
  private readonly shells = new Map<string, { seq: number; letter: MarkLetter }>()
  private doubtAt: ReadonlyMap<string, number> | null = null

  /** Whether this mark goes back: an older prompt number, or a letter its prompt is past. */
  isReplay(token: string, seq: number, letter: MarkLetter): boolean {
    const last = this.shells.get(token)
    return last !== undefined && (seq < last.seq || (seq === last.seq && !NEXT[last.letter].has(letter)))
  }

  /**
   * Counts a mark that is no replay. True when it ends doubt: a B of a prompt newer than every one
   * seen when doubt arose.
   */
  record(token: string, seq: number, letter: MarkLetter): boolean {
    if (!this.shells.has(token) && this.shells.size >= KEPT_SHELLS) {
      this.shells.delete(this.shells.keys().next().value!)
    }
    this.shells.set(token, { seq, letter })
    if (letter !== "B" || this.doubtAt === null) return false
    const atDoubt = this.doubtAt.get(token)
    if (atDoubt !== undefined && seq <= atDoubt) return false
    this.doubtAt = null
    return true
  }

  /** Whether any mark of the shell `key` was counted (it is remembered). */
  knows(key: string): boolean {
    return this.shells.has(key)
  }

  /**
   * The shells whose last counted mark is a C, by key, with that prompt's number: each runs a
   * command (ssh, a nested shell, a container exec) or went away while running one (`exit`).
   */
  running(): ReadonlyMap<string, number> {
    return new Map([...this.shells].filter(([, s]) => s.letter === "C").map(([key, s]) => [key, s.seq]))
  }

  /** Doubt ended some other way (a standard integration's next prompt). */
  clearDoubt(): void {
    this.doubtAt = null
  }

  /** Doubt arose now: only a prompt newer than every one seen so far verifies the shell again. */
  doubtFrom(): void {
    this.doubtAt = new Map([...this.shells].map(([token, s]) => [token, s.seq]))
  }
}
