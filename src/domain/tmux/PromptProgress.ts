/**
 * PromptProgress — where one tmux pane's shell is in its prompts, from the marks that count
 * (MarkTrust.ts decides which do), pure: the prompt phase and counter (the prompt id), the letter
 * of the last counted mark, the PromptEvents each mark means, whether anything was typed since the
 * prompt was drawn (PromptColumn.ts follows the cursor after it), and the capture of each
 * command's output between its C and its end (CommandCapture.ts).
 */

import { type Osc133Mark, type PromptPhase, stepPrompt } from "../Osc133.js"
import type { PromptEvent } from "../PromptEvent.js"
import { CommandCapture } from "./CommandCapture.js"
import { letterOf } from "./MarkLedger.js"
import { PromptColumn } from "./PromptColumn.js"
import type { RenderedLines } from "./TextRender.js"

/** The letter of the last counted mark, null when none was seen since watching started. */
export type LastMark = "A" | "B" | "C" | "D" | null

export class PromptProgress {
  readonly capture = new CommandCapture()
  private readonly column = new PromptColumn()
  private phase: PromptPhase = "none"
  /** A D came since the last B (so the next A is a new prompt, not a redraw of this one). */
  private endedSinceDrawn = false
  private lastLetter: LastMark = null
  private echoed = false
  private counter = 0

  /** The letter of the last counted mark. */
  get last(): LastMark {
    return this.lastLetter
  }

  /** The current prompt's id (the counter of counted `A` marks), null before the first. */
  get promptId(): string | null {
    return this.counter === 0 ? null : String(this.counter)
  }

  /** Something visible (or a string sequence that is no counted mark) was written since the last counted `B`. */
  get typedSinceB(): boolean {
    return this.echoed || (this.lastLetter === "B" && this.column.astray)
  }

  /** A prompt drawn before watching, with (`typed`) or without text typed at it, as if its A and B had been seen. */
  adopt(typed: boolean): ReadonlyArray<PromptEvent> {
    const events = [this.mark({ _tag: "PromptStart" }), this.mark({ _tag: "CommandLineStart" })]
    this.echoed = typed
    return events.filter((e) => e !== null)
  }

  /** Text the pane printed. */
  print(text: string): void {
    if (this.lastLetter === "B") this.echoed = true
    this.column.print(text)
    this.capture.print(text)
  }

  /** A C0 control the pane wrote. */
  execute(code: number): void {
    // A line feed or tab after the prompt is typing; a carriage return or backspace only if the
    // cursor does not come back to the prompt's end (PromptColumn: fish's redraw does).
    if ((code === 0x0a || code === 0x09) && this.lastLetter === "B") this.echoed = true
    this.column.execute(code, this.lastLetter === "B")
    this.capture.control(code)
  }

  csi(params: string, final: number): void {
    this.column.csi(params, final, this.lastLetter === "B")
    this.capture.csi(params, final)
  }

  /** An escape string opened. */
  stringStart(): void {
    // Only a counted mark may follow the prompt (counting it clears this again); any other string
    // may hide what was typed.
    if (this.lastLetter === "B") this.echoed = true
  }

  /** The rendered output of the command typed at `promptId`, if it finished and is still kept. */
  output(promptId: string): RenderedLines | undefined {
    return this.capture.kept(promptId)
  }

  /** The rendered output so far of the command typed at `promptId`, if it is being captured now. */
  outputSoFar(promptId: string): RenderedLines | undefined {
    return this.capturingFor(promptId) ? this.capture.soFar : undefined
  }

  /** The lines the command typed at `promptId` wrote: so far while captured, in all once kept; else null. */
  lineCount(promptId: string): number | null {
    if (this.capturingFor(promptId)) return this.capture.linesSoFar
    return this.capture.keptLines(promptId)
  }

  private capturingFor(promptId: string): boolean {
    return this.capture.active && String(this.counter) === promptId
  }

  /**
   * The shell that carried our command typed at `promptId` ended with `mark` (MarkTrust's
   * `shellGone`): its output so far is kept, and the runner learns it with the carrier's status.
   */
  shellGone(promptId: string, mark: Osc133Mark): PromptEvent {
    if (this.capture.active) this.capture.finish(promptId)
    this.phase = "finished"
    const exitCode = mark._tag === "CommandFinished" ? mark.exitCode : null
    return { _tag: "ShellGone", promptId, exitCode }
  }

  /** A counted mark: the event it means, if any. */
  mark(mark: Osc133Mark): PromptEvent | null {
    // An A while the command line is open and no D came since (a resize, SIGWINCH) is the shell
    // redrawing the same prompt: the command typed at it is still the one that will run there.
    const redraw = mark._tag === "PromptStart" && this.phase === "editing" && !this.endedSinceDrawn
    if (mark._tag === "CommandFinished") this.endedSinceDrawn = true
    if (mark._tag === "CommandLineStart") this.endedSinceDrawn = false
    const { phase, step } = stepPrompt(this.phase, mark)
    this.phase = phase
    const promptId = String(this.counter)
    let event: PromptEvent | null = null
    switch (step._tag) {
      case "NewPrompt":
        if (this.capture.active) this.capture.finish(promptId)
        if (!redraw) this.counter++
        break
      case "PromptDrawn":
        event = { _tag: "Prompt", promptId }
        break
      case "CommandStarted":
        this.capture.start()
        event = { _tag: "CommandStart", promptId, command: null }
        break
      case "CommandEnded":
        if (this.capture.active) this.capture.finish(promptId)
        event = { _tag: "CommandEnd", promptId, exitCode: step.exitCode }
        break
    }
    this.lastLetter = letterOf(mark)
    this.echoed = false
    if (mark._tag === "CommandLineStart") this.column.prompt()
    return event
  }
}
