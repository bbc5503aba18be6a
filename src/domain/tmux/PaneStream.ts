/**
 * PaneStream — what one tmux pane's output stream says about its shell, pure: UTF-8 decoded per
 * pane (a character may be split between `%output` lines), OSC 133 marks and OSC 7 found with
 * state carried across chunks, marks authenticated by the pane's announced `tp=` tokens, the
 * prompt counter and the PromptEvents the marks mean, whether anything was echoed since the
 * prompt was drawn, and the rendered, bounded output between C and D of each command that started
 * while the pane was watched (`record`).
 */

import type { PromptEvent } from "../../services/PromptTracker.js"
import {
  type Osc133Mark,
  type OscSegment,
  osc133Token,
  type PromptPhase,
  parseOsc7,
  parseOsc133,
  scanOscSegments,
  stepPrompt
} from "../Osc133.js"
import { type RenderedLines, TextRender } from "./TextRender.js"

/** The letter of the last counted mark, null when none was seen since watching started. */
export type LastMark = "A" | "B" | "C" | "D" | null

/** What the stream says, for the readiness verdict. */
export interface StreamFacts {
  readonly lastMark: LastMark
  /** Something visible was written since the last counted `B`. */
  readonly echoedSinceB: boolean
  /** The current prompt's id (the counter of counted `A` marks), null before the first. */
  readonly promptId: string | null
  /** The stream is held at a mark whose token is being checked: its newest state is not known. */
  readonly held: boolean
}

/** Events made by one step, and whether the stream waits for the pane's tokens to be re-read. */
export interface StreamStep {
  readonly events: ReadonlyArray<PromptEvent>
  readonly needTokens: boolean
}

/** Outputs of finished commands kept per pane (the runner reads its own right after its D). */
const KEPT_OUTPUTS = 8
/** Unannounced tokens remembered so a pane printing fake ones cannot make us re-read forever. */
const KEPT_REJECTED = 256

const LETTER = {
  PromptStart: "A",
  CommandLineStart: "B",
  CommandExecuted: "C",
  CommandFinished: "D"
} as const

export class PaneStream {
  private readonly decoder = new TextDecoder("utf-8")
  private readonly render = new TextRender()
  private carry = ""
  private tokens: ReadonlySet<string>
  private readonly rejected = new Set<string>()
  private blocked: { segments: ReadonlyArray<OscSegment>; index: number; token: string | null } | null = null
  private backlog: Array<string> = []
  private phase: PromptPhase = "none"
  /** A D came since the last B (so the next A is a new prompt, not a redraw of this one). */
  private endedSinceDrawn = false
  private last: LastMark = null
  private echoed = false
  private counter = 0
  private capturing = false
  /** Render the output of commands that start from now on (set while the pane is watched). */
  record = false
  private readonly outputs = new Map<string, { readonly rendered: RenderedLines; readonly lines: number }>()
  private location: { path: string; host: string | null } | null = null

  /** Whether the pane's announced tokens were ever read; until then no mark is trusted unchecked. */
  private tokensRead: boolean

  /** `tokens`: the pane's announced tokens when known; omitted, the first mark makes them be read. */
  constructor(tokens?: ReadonlyArray<string>) {
    this.tokens = new Set(tokens ?? [])
    this.tokensRead = tokens !== undefined
  }

  get facts(): StreamFacts {
    return {
      lastMark: this.last,
      echoedSinceB: this.echoed,
      promptId: this.counter === 0 ? null : String(this.counter),
      held: this.blocked !== null
    }
  }

  /** The cwd and host of the last OSC 7, if any. */
  get cwd(): { readonly path: string; readonly host: string | null } | null {
    return this.location
  }

  /** Whether the stream is held at a mark whose token must be checked against the pane's list. */
  get waitingForTokens(): boolean {
    return this.blocked !== null
  }

  /** The rendered output of the command typed at `promptId`, if it finished and is still kept. */
  output(promptId: string): RenderedLines | undefined {
    return this.outputs.get(promptId)?.rendered
  }

  /** The rendered output so far of the command typed at `promptId`, if it is being captured now. */
  outputSoFar(promptId: string): RenderedLines | undefined {
    return this.capturingFor(promptId) ? this.render.result() : undefined
  }

  /**
   * How many lines the command typed at `promptId` has written (dropped ones included): so far
   * while it is being captured, in all once it finished and is kept; null when neither.
   */
  lineCount(promptId: string): number | null {
    if (this.capturingFor(promptId)) return this.render.lineCount
    return this.outputs.get(promptId)?.lines ?? null
  }

  private capturingFor(promptId: string): boolean {
    return this.capturing && String(this.counter) === promptId
  }

  /** Bytes the pane wrote. */
  feed(bytes: Uint8Array): StreamStep {
    const text = this.decoder.decode(bytes, { stream: true })
    if (this.blocked !== null) {
      this.backlog.push(text)
      return { events: [], needTokens: false }
    }
    return this.scan(text)
  }

  /** The tokens known now. */
  get tokenList(): ReadonlyArray<string> {
    return [...this.tokens]
  }

  /** Whether `tokens` is exactly the set already known (and nothing waits for a re-read). */
  hasTokens(tokens: ReadonlyArray<string>): boolean {
    return (
      this.blocked === null &&
      this.tokensRead &&
      tokens.length === this.tokens.size &&
      tokens.every((t) => this.tokens.has(t))
    )
  }

  /** The pane's announced tokens (`@termpilot_tokens`), re-read; resumes a held stream. */
  setTokens(tokens: ReadonlyArray<string>): StreamStep {
    this.tokens = new Set(tokens)
    this.tokensRead = true
    const held = this.blocked
    if (held === null) return { events: [], needTokens: false }
    this.blocked = null
    if (held.token !== null && !this.tokens.has(held.token)) {
      if (this.rejected.size >= KEPT_REJECTED) this.rejected.clear()
      this.rejected.add(held.token)
    }
    const events: Array<PromptEvent> = []
    let step = this.process(held.segments, held.index)
    events.push(...step.events)
    while (!step.needTokens && this.backlog.length > 0) {
      step = this.scan(this.backlog.shift()!)
      events.push(...step.events)
    }
    return { events, needTokens: step.needTokens }
  }

  private scan(text: string): StreamStep {
    const scan = scanOscSegments(this.carry, text)
    this.carry = scan.carry
    return this.process(scan.segments, 0)
  }

  private process(segments: ReadonlyArray<OscSegment>, from: number): StreamStep {
    const events: Array<PromptEvent> = []
    for (let i = from; i < segments.length; i++) {
      const segment = segments[i]!
      if (segment._tag === "Text") {
        const visible = this.render.write(segment.text, this.capturing)
        if (visible && this.last === "B") this.echoed = true
        continue
      }
      if (segment.ident === 7) {
        const report = parseOsc7(segment.payload)
        if (report?._tag === "Directory") this.location = { path: report.path, host: report.host }
        continue
      }
      if (segment.ident !== 133) continue
      const mark = parseOsc133(segment.payload)
      if (mark === null) continue
      const token = osc133Token(segment.payload)
      const verdict = this.admits(token)
      if (verdict === "refresh") {
        this.blocked = { segments, index: i, token }
        return { events, needTokens: true }
      }
      if (verdict === "count") this.mark(mark, events)
    }
    return { events, needTokens: false }
  }

  /**
   * Announced tokens → only marks carrying one count; none announced → standard marks count. A
   * mark before the tokens were ever read, or with a token not seen yet, waits for a re-read.
   */
  private admits(token: string | null): "count" | "ignore" | "refresh" {
    if (!this.tokensRead) return "refresh"
    if (token !== null && this.tokens.has(token)) return "count"
    if (token !== null && !this.rejected.has(token)) return "refresh"
    return this.tokens.size === 0 ? "count" : "ignore"
  }

  private mark(mark: Osc133Mark, events: Array<PromptEvent>): void {
    // An A while the command line is open and no D came since (a resize, SIGWINCH) is the shell
    // redrawing the same prompt: the command typed at it is still the one that will run there.
    const redraw = mark._tag === "PromptStart" && this.phase === "editing" && !this.endedSinceDrawn
    if (mark._tag === "CommandFinished") this.endedSinceDrawn = true
    if (mark._tag === "CommandLineStart") this.endedSinceDrawn = false
    const { phase, step } = stepPrompt(this.phase, mark)
    this.phase = phase
    const promptId = String(this.counter)
    switch (step._tag) {
      case "NewPrompt":
        if (this.capturing) this.finishCapture(promptId)
        if (!redraw) this.counter++
        break
      case "PromptDrawn":
        events.push({ _tag: "Prompt", promptId })
        break
      case "CommandStarted":
        this.capturing = this.record
        this.render.clear()
        events.push({ _tag: "CommandStart", promptId, command: null })
        break
      case "CommandEnded":
        if (this.capturing) this.finishCapture(promptId)
        events.push({ _tag: "CommandEnd", promptId, exitCode: step.exitCode })
        break
    }
    this.last = LETTER[mark._tag]
    this.echoed = false
  }

  private finishCapture(promptId: string): void {
    this.capturing = false
    this.outputs.set(promptId, { rendered: this.render.result(), lines: this.render.lineCount })
    this.render.clear()
    if (this.outputs.size > KEPT_OUTPUTS) this.outputs.delete(this.outputs.keys().next().value!)
  }
}
