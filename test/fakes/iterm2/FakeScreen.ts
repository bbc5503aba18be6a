/**
 * FakeScreen — one session's terminal model: @xterm/headless fed with PTY output, seen in iTerm2's
 * absolute line numbers (y=0 is the first line ever; lines trimmed off the scrollback count as
 * `overflow`), plus the line reads GetBuffer needs and the alternate-screen flag.
 */
import xterm from "@xterm/headless"
import type { Coord, LineContents } from "../../../src/generated/iterm2/Iterm2Messages.js"

const { Terminal } = xterm
type XTerm = InstanceType<typeof Terminal>
type XBufferLine = NonNullable<ReturnType<XTerm["buffer"]["active"]["getLine"]>>

export interface LineInfo {
  readonly overflow: number
  readonly history: number
  readonly grid: number
  readonly firstVisible: number
}

interface TrimmableLines {
  readonly lines: { onTrim(listener: (amount: number) => void): unknown }
}

export class FakeScreen {
  readonly term: XTerm
  readonly cols: number
  readonly rows: number
  private trimmed = 0
  private pending = 0
  private drainWaiters: Array<() => void> = []

  constructor(options: { cols: number; rows: number; scrollback: number }) {
    this.cols = options.cols
    this.rows = options.rows
    this.term = new Terminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback,
      allowProposedApi: true
    })
    // xterm's public API has no trim event; its normal buffer's CircularList has one (pinned 6.0.0).
    const core = (this.term as unknown as { _core?: { buffers?: { normal?: TrimmableLines } } })._core
    const normal = core?.buffers?.normal
    if (normal === undefined)
      throw new Error("FakeScreen: @xterm/headless internals changed (buffers.normal)")
    normal.lines.onTrim((amount) => {
      this.trimmed += amount
    })
  }

  /** Feeds PTY output; `done` runs once xterm has parsed it. */
  write(data: string, done: () => void): void {
    this.pending += 1
    this.term.write(data, () => {
      this.pending -= 1
      done()
      if (this.pending === 0) {
        const waiters = this.drainWaiters
        this.drainWaiters = []
        for (const w of waiters) w()
      }
    })
  }

  /** Resolves once everything written so far has been parsed. */
  drain(): Promise<void> {
    if (this.pending === 0) return Promise.resolve()
    return new Promise((resolve) => this.drainWaiters.push(resolve))
  }

  get alternateScreen(): boolean {
    return this.term.buffer.active.type === "alternate"
  }

  /** Lines dropped off the top of the scrollback so far. */
  get overflow(): number {
    return this.trimmed
  }

  lineInfo(): LineInfo {
    const history = this.term.buffer.normal.baseY
    const firstVisible = this.alternateScreen ? history : this.term.buffer.normal.viewportY
    return { overflow: this.trimmed, history, grid: this.rows, firstVisible: this.trimmed + firstVisible }
  }

  /** Absolute number of the first screen line. */
  get screenTop(): number {
    return this.trimmed + this.term.buffer.normal.baseY
  }

  /** Absolute number one past the last line that exists. */
  get end(): number {
    return this.screenTop + this.rows
  }

  /** The cursor in absolute coordinates (x may equal `cols` while a wrap is pending). */
  cursor(): Required<Coord> {
    const active = this.term.buffer.active
    return { x: active.cursorX, y: this.screenTop + active.cursorY }
  }

  /** The line at absolute `y`, or undefined when it was dropped or does not exist yet. */
  line(y: number): XBufferLine | undefined {
    if (y < this.trimmed || y >= this.end) return undefined
    const history = this.term.buffer.normal.baseY
    const index = y - this.trimmed
    if (index < history) return this.term.buffer.normal.getLine(index)
    const active = this.term.buffer.active
    return active.getLine(active.baseY + (index - history))
  }

  /** True when line `y` continues on line `y+1` because of a soft wrap. */
  softWrapped(y: number): boolean {
    return this.line(y + 1)?.isWrapped === true
  }

  /** Text of line `y` from column `from` to `to` (exclusive), without trailing uninitialized cells. */
  text(y: number, from = 0, to = this.cols): string {
    return this.line(y)?.translateToString(true, from, to) ?? ""
  }

  /** One GetBuffer LineContents for cells [from, to) of line `y`. */
  contents(y: number, from: number, to: number, partial: boolean): LineContents {
    const line = this.line(y)
    const text = line?.translateToString(true, from, to) ?? ""
    const soft = partial || (to >= this.cols && this.softWrapped(y))
    const runs: Array<{ num_code_points: number; repeats: number }> = []
    if (line !== undefined) {
      const limit = Math.min(to, from + trimmedLength(line, from, to))
      for (let x = from; x < limit; x++) {
        const cell = line.getCell(x)
        if (cell === undefined || cell.getWidth() === 0) continue
        const count = [...cell.getChars()].length
        const last = runs[runs.length - 1]
        if (last !== undefined && last.num_code_points === count) last.repeats += 1
        else runs.push({ num_code_points: count, repeats: 1 })
      }
    }
    return {
      text,
      code_points_per_cell: runs,
      continuation: soft ? "CONTINUATION_SOFT_EOL" : "CONTINUATION_HARD_EOL"
    }
  }

  /**
   * End of what is written on the logical line starting at `start` (following soft wraps): the cell
   * after the last initialized one, or `start` itself when nothing follows it.
   */
  endOfLogicalLine(start: Required<Coord>): Required<Coord> {
    let end = start
    let y = start.y
    let from = start.x
    for (;;) {
      const line = this.line(y)
      if (line === undefined) return end
      const length = trimmedLength(line, 0, this.cols)
      if (length > from) end = { x: length, y }
      if (!this.softWrapped(y)) return end
      y += 1
      from = 0
    }
  }

  /** The text in [start, end) joined across lines (soft wraps join, hard ends become "\n"). */
  textBetween(start: Required<Coord>, end: Required<Coord>): string {
    let out = ""
    for (let y = start.y; y <= end.y; y++) {
      const from = y === start.y ? start.x : 0
      const to = y === end.y ? end.x : this.cols
      out += this.text(y, from, to)
      if (y < end.y && !this.softWrapped(y)) out += "\n"
    }
    return out
  }

  /** The visible screen as text, one line per row, trailing blank cells dropped. */
  screenText(): string {
    const lines: Array<string> = []
    for (let y = this.screenTop; y < this.end; y++) lines.push(this.text(y))
    return lines.join("\n")
  }

  dispose(): void {
    this.term.dispose()
  }
}

/** Number of cells in [from, to) up to and including the last initialized one, counted from `from`. */
const trimmedLength = (line: XBufferLine, from: number, to: number): number => {
  for (let x = to - 1; x >= from; x--) {
    const cell = line.getCell(x)
    if (cell !== undefined && (cell.getChars() !== "" || cell.getWidth() === 0)) return x + 1 - from
  }
  return 0
}
