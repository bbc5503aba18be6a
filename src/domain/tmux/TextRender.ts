/**
 * TextRender — renders one command's output the way a terminal row shows it, pure: fed the
 * printable runs, C0 controls and CSI sequences that VtParser (src/domain/VtParser.ts) finds in
 * the pane's stream, so it never parses escapes itself. CR goes back to column 0, BS one left, TAB
 * to the next stop, LF ends the line, CSI K erases, CSI C/D/G move; other sequences change nothing
 * here. Text a terminal would not show is never kept, and what could not be rendered is noted in
 * the text. Only a bounded tail is kept, whatever the program prints.
 */
import type { ReadBounds } from "../TextBounds.js"
import { VtParser, type VtSink } from "../VtParser.js"

/** The most of one command's output kept while it runs (run_command's line bound, 128 KiB of text). */
export const CAPTURE_BOUNDS: ReadBounds = { maxLines: 2000, maxChars: 131072 }

/** The rendered tail of a capture: whole lines, oldest first, and whether older text was dropped. */
export interface RenderedLines {
  readonly lines: ReadonlyArray<string>
  readonly truncated: boolean
}

/** Code points in `text` (a surrogate pair is one cell here, as in the cells array). */
const cellCount = (text: string): number => {
  let n = text.length
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const h = text.charCodeAt(i - 1)
      if (h >= 0xd800 && h <= 0xdbff) n--
    }
  }
  return n
}

const SURROGATE = /[\ud800-\udfff]/

export class TextRender {
  private lines: Array<string> = []
  private head = 0
  private chars = 0
  /**
   * The current line: as one string while the cursor is at its end (`flat`, the fast path for
   * output that only appends), as cells once the cursor moved back into it.
   */
  private flat = ""
  private flatCells = 0
  private cells: Array<string> | null = null
  private col = 0
  private dropped = false
  /** Lines completed since the last `clear`, dropped ones included. */
  private completed = 0

  constructor(private readonly bounds: ReadBounds = CAPTURE_BOUNDS) {}

  /** Printable characters at the cursor. */
  print(text: string): void {
    if (this.cells === null && this.col === this.flatCells) {
      this.flat += text
      this.flatCells += SURROGATE.test(text) ? cellCount(text) : text.length
      this.col = this.flatCells
      if (this.flat.length > this.bounds.maxChars * 2) {
        this.flat = this.flat.slice(this.flat.length - this.bounds.maxChars)
        this.flatCells = cellCount(this.flat)
        this.col = this.flatCells
        this.dropped = true
      }
      return
    }
    const cells = this.toCells()
    const n = text.length
    for (let i = 0; i < n; i++) {
      const code = text.charCodeAt(i)
      const cell = code >= 0xd800 && code <= 0xdbff && i + 1 < n ? text.slice(i, ++i + 1) : text[i]!
      while (cells.length < this.col) cells.push(" ")
      cells[this.col++] = cell
    }
    if (cells.length > this.bounds.maxChars * 2) {
      const cut = cells.length - this.bounds.maxChars
      cells.splice(0, cut)
      this.col = Math.max(0, this.col - cut)
      this.dropped = true
    }
  }

  /** A C0 control: CR, LF, BS and TAB move the cursor; the others show nothing. */
  control(code: number): void {
    if (code === 0x0d) this.col = 0
    else if (code === 0x08) this.col = Math.max(0, this.col - 1)
    else if (code === 0x09) this.col = (Math.floor(this.col / 8) + 1) * 8
    else if (code === 0x0a) this.newline()
  }

  /** A line of TermPilot's own saying what could not be rendered (after the current one). */
  note(text: string): void {
    if (this.current() !== "") this.newline()
    this.print(text)
    this.newline()
  }

  /** Forget the rendered text. */
  clear(): void {
    this.lines = []
    this.head = 0
    this.chars = 0
    this.flat = ""
    this.flatCells = 0
    this.cells = null
    this.col = 0
    this.dropped = false
    this.completed = 0
  }

  /** How many lines `result()` would hold if nothing had been dropped. */
  get lineCount(): number {
    return this.completed + (this.current().trim() === "" ? 0 : 1)
  }

  /**
   * The kept tail: completed lines plus the unterminated current one when it shows anything (a
   * blank one is cursor housekeeping such as zsh's PROMPT_SP, not output).
   */
  result(): RenderedLines {
    const lines = this.lines.slice(this.head)
    const current = this.current()
    if (current.trim() !== "") lines.push(current)
    return { lines, truncated: this.dropped }
  }

  /** A CSI sequence: erase in line and the horizontal moves render; the others change nothing here. */
  csi(params: string, final: number): void {
    const first = params === "" ? Number.NaN : Number.parseInt(params, 10)
    const count = Number.isNaN(first) || first < 1 ? 1 : first
    switch (final) {
      case 0x4b: {
        // K: erase in line
        const cells = this.toCells()
        if (params === "" || first === 0) cells.length = Math.min(cells.length, this.col)
        else if (first === 1) for (let c = 0; c <= this.col && c < cells.length; c++) cells[c] = " "
        else if (first === 2) cells.length = 0
        return
      }
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

  private current(): string {
    return this.cells === null ? this.flat : this.cells.join("")
  }

  private toCells(): Array<string> {
    if (this.cells === null) {
      this.cells = Array.from(this.flat)
      this.flat = ""
      this.flatCells = 0
    }
    return this.cells
  }

  private newline(): void {
    let line = this.current()
    const cells = this.cells ?? null
    const width = cells === null ? this.flatCells : cells.length
    if (width > this.bounds.maxChars) {
      line = (cells ?? Array.from(line)).slice(width - this.bounds.maxChars).join("")
      this.dropped = true
    }
    this.lines.push(line)
    this.completed++
    this.chars += line.length + 1
    this.flat = ""
    this.flatCells = 0
    this.cells = null
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
}

/** The line the rendered output gets where an escape string was abandoned unterminated. */
export const unrenderedNote = (kind: string, length: number): string =>
  `[TermPilot: an unterminated ${kind} escape string of ${length} characters is not shown]`

/** The rendered text of a whole stream given in chunks (escapes parsed as in a pane's stream). */
export const renderText = (chunks: Iterable<string>, bounds: ReadBounds = CAPTURE_BOUNDS): RenderedLines => {
  const render = new TextRender(bounds)
  const parser = new VtParser()
  const sink: VtSink = {
    print: (text) => render.print(text),
    execute: (code) => render.control(code),
    csi: (params, final) => render.csi(params, final),
    osc: () => false,
    stringStart: () => {},
    abandoned: (kind, _reason, length) => render.note(unrenderedNote(kind, length))
  }
  for (const chunk of chunks) parser.write(chunk, sink)
  return render.result()
}
