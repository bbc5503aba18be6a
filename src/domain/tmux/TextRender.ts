/**
 * TextRender — a small terminal-text renderer for one pane's output stream, pure. It parses
 * escape sequences with state carried across chunks (a CSI may be split between `%output` lines),
 * reports whether anything visible was written (printables, CR, LF, BS, TAB; not escape
 * sequences), and, when capturing, renders text the way a terminal row would show it: CR back to
 * column 0, BS one left, LF ends the line, CSI K erases, CSI C/D/G move, other sequences dropped.
 * Only a bounded tail is kept, whatever the program prints.
 */
import type { ReadBounds } from "../../services/Terminal.js"

/** The most of one command's output kept while it runs (run_command's line bound, 128 KiB of text). */
export const CAPTURE_BOUNDS: ReadBounds = { maxLines: 2000, maxChars: 131072 }

/** Escape-parser states. */
const State = { Ground: 0, Escape: 1, EscapeIntermediate: 2, Csi: 3, String: 4, StringEscape: 5 } as const
type State = (typeof State)[keyof typeof State]

/** The rendered tail of a capture: whole lines, oldest first, and whether older text was dropped. */
export interface RenderedLines {
  readonly lines: ReadonlyArray<string>
  readonly truncated: boolean
}

export class TextRender {
  private state: State = State.Ground
  private params = ""
  private lines: Array<string> = []
  private head = 0
  private chars = 0
  private cells: Array<string> = []
  private col = 0
  private dropped = false
  /** Lines completed since the last `clear`, dropped ones included. */
  private completed = 0

  constructor(private readonly bounds: ReadBounds = CAPTURE_BOUNDS) {}

  /**
   * Consume `text`. With `capture` the visible text is rendered into the kept tail; without it
   * only the escape state advances. Returns whether anything visible was written.
   */
  write(text: string, capture: boolean): boolean {
    let visible = false
    const n = text.length
    for (let i = 0; i < n; i++) {
      const code = text.charCodeAt(i)
      switch (this.state) {
        case State.Ground:
          if (code >= 0x20 && code !== 0x7f && (code < 0x80 || code > 0x9f)) {
            visible = true
            if (!capture) continue
            if (code >= 0xd800 && code <= 0xdbff && i + 1 < n) {
              this.put(text.slice(i, i + 2))
              i++
            } else {
              this.put(text[i]!)
            }
          } else if (code === 0x1b) {
            this.state = State.Escape
          } else if (code === 0x0d || code === 0x0a || code === 0x08 || code === 0x09) {
            visible = true
            if (capture) this.control(code)
          }
          continue
        case State.Escape:
          if (code === 0x5b) {
            this.state = State.Csi
            this.params = ""
          } else if (code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) {
            this.state = State.String
          } else if (code >= 0x20 && code <= 0x2f) {
            this.state = State.EscapeIntermediate
          } else {
            this.state = State.Ground
          }
          continue
        case State.EscapeIntermediate:
          if (code < 0x20 || code > 0x2f) this.state = State.Ground
          continue
        case State.Csi:
          if (code >= 0x40 && code <= 0x7e) {
            this.state = State.Ground
            if (capture) this.csi(code)
          } else if (code === 0x1b) {
            this.state = State.Escape
          } else if (this.params.length < 32) {
            this.params += text[i]
          }
          continue
        case State.String:
          if (code === 0x07) this.state = State.Ground
          else if (code === 0x1b) this.state = State.StringEscape
          continue
        case State.StringEscape:
          this.state = code === 0x5c ? State.Ground : State.String
          continue
      }
    }
    return visible
  }

  /** Forget the rendered text (the escape state stays: it belongs to the stream). */
  clear(): void {
    this.lines = []
    this.head = 0
    this.chars = 0
    this.cells = []
    this.col = 0
    this.dropped = false
    this.completed = 0
  }

  /** How many lines `result()` would hold if nothing had been dropped. */
  get lineCount(): number {
    return this.completed + (this.cells.join("").trim() === "" ? 0 : 1)
  }

  /**
   * The kept tail: completed lines plus the unterminated current one when it shows anything (a
   * blank one is cursor housekeeping such as zsh's PROMPT_SP, not output).
   */
  result(): RenderedLines {
    const lines = this.lines.slice(this.head)
    const current = this.cells.join("")
    if (current.trim() !== "") lines.push(current)
    return { lines, truncated: this.dropped }
  }

  private put(cell: string): void {
    if (this.col > this.cells.length) this.pad()
    this.cells[this.col++] = cell
    if (this.cells.length > this.bounds.maxChars * 2) {
      const cut = this.cells.length - this.bounds.maxChars
      this.cells.splice(0, cut)
      this.col = Math.max(0, this.col - cut)
      this.dropped = true
    }
  }

  private pad(): void {
    while (this.cells.length < this.col) this.cells.push(" ")
  }

  private control(code: number): void {
    if (code === 0x0d) this.col = 0
    else if (code === 0x08) this.col = Math.max(0, this.col - 1)
    else if (code === 0x09) this.col = (Math.floor(this.col / 8) + 1) * 8
    else this.newline()
  }

  private newline(): void {
    let line = this.cells.join("")
    if (this.cells.length > this.bounds.maxChars) {
      line = this.cells.slice(this.cells.length - this.bounds.maxChars).join("")
      this.dropped = true
    }
    this.lines.push(line)
    this.completed++
    this.chars += line.length + 1
    this.cells = []
    this.col = 0
    while (
      this.lines.length - this.head > this.bounds.maxLines ||
      (this.chars > this.bounds.maxChars && this.lines.length - this.head > 1)
    ) {
      this.chars -= (this.lines[this.head]?.length ?? 0) + 1
      this.head++
      this.dropped = true
    }
    if (this.head > 4096) {
      this.lines = this.lines.slice(this.head)
      this.head = 0
    }
  }

  private csi(final: number): void {
    const first = this.params === "" ? Number.NaN : Number.parseInt(this.params, 10)
    const count = Number.isNaN(first) || first < 1 ? 1 : first
    switch (final) {
      case 0x4b: // K: erase in line
        if (this.params === "" || first === 0) this.cells.length = Math.min(this.cells.length, this.col)
        else if (first === 1) for (let c = 0; c <= this.col && c < this.cells.length; c++) this.cells[c] = " "
        else if (first === 2) this.cells = []
        return
      case 0x43: // C: forward
        this.col += Math.min(count, 1000)
        return
      case 0x44: // D: back
        this.col = Math.max(0, this.col - count)
        return
      case 0x47: // G: column
        this.col = Math.min(count - 1, 1000)
        return
    }
  }
}
