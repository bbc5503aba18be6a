/**
 * RowModel — where tmux's cursor is in a pane's grid at each byte of the pane's output, pure: tmux's
 * own cursor rules (input.c, screen-write.c, grid.c, screen.c, the same in 3.2a to 3.7c) run over
 * the parsed stream between sync points, `display -p` replies that give tmux's state after exactly
 * the bytes before them (not every reply does: PaneEntry.syncRows). Only the cursor and the history's size are modelled, never the cells; a line
 * names one grid row for its whole life (tmux's absolute row plus the rows trimmed since), so a
 * shell mark's line still names its row after the history has grown or been trimmed.
 *
 * Anything not followed exactly (a scroll region scrolling, a screen or history cleared, a
 * character tmux may count otherwise, an escape it does not know) loses track until the next sync:
 * lost is much better than wrong. Assumed, as nothing in the stream or a sync tells: tmux's default
 * tab stops until an HTS/TBC, no `codepoint-widths`, and options unchanged between syncs.
 */

import type { StringKind } from "../VtParser.js"
import {
  csiEntry,
  type GridState,
  isNarrow,
  NO_CURSOR,
  type Params,
  paramAt,
  parseParams
} from "./RowRules.js"

export { GRID_FORMAT, type GridModes, type GridState, parseGridState } from "./RowRules.js"

/** Told what the model cannot follow and which earlier cells were written over. */
export interface RowListener {
  /** Cells at or after (line, col) in line-major order may have been rewritten (only reported for points before the protected point). */
  rewritten(line: number, col: number): void
  /** The model lost track: positions are unknown until the next sync. */
  lost(reason: string): void
}

interface Point {
  readonly line: number
  readonly col: number
}
const before = (a: Point, b: Point) => a.line < b.line || (a.line === b.line && a.col < b.col)

/** What DECSC saved (tmux keeps it per pane, across both screens); null parts are not known. */
interface SavedState {
  readonly at: { readonly x: number; readonly y: number } | null
  readonly origin: boolean | null
}

/** One pane's cursor as tmux moves it; feed it the pane's parsed output in order, and sync it often. */
export class RowModel {
  constructor(private readonly listener: RowListener) {}

  private geo: GridState | null = null
  private tracking = false
  /** The history when the model last lost track (cleared by an ED 3 seen since). */
  private lostAt: { historySize: number; historyLimit: number; width: number } | null = null
  private continued = false
  private hsize = 0
  private hlimit = 0
  private sx = 1
  private sy = 1
  private x = 0
  private y = 0
  private trim = 0
  private alt = false
  /** tmux's saved main cursor (?1049h); kept after the alternate screen is left. */
  private saved: { x: number; y: number } | null = null
  // Kept across syncs and losses: tmux changes them only from the stream (or on a resize).
  private top = 0
  private bottom = 0
  private wrap = true
  private origin = false
  private altEnabled = true
  private tabsDefault = true
  private decsc: SavedState | null = null
  private guarded: Point | null = null
  private reported: Point | null = null

  /** The cursor's line and column on the MAIN screen (the saved main cursor while the alternate screen is on), null while lost or before the first sync. */
  get cursor(): Point | null {
    const at = this.alt ? this.saved : { x: this.x, y: this.y }
    return this.tracking && at !== null ? { line: this.trim + this.hsize + at.y, col: at.x } : null
  }

  /** Line minus absolute row: tmux's trims since the first sync (after a loss, past every line named before it). */
  get trimmed(): number {
    return this.trim
  }

  /** Whether the last sync after a loss kept the lines named before it (see `continues`). */
  get resumed(): boolean {
    return this.continued
  }

  /** The line of the screen's top row now (with the lines before it in the history); null before the first sync. */
  get screenTop(): number | null {
    return this.geo === null ? null : this.trim + this.hsize
  }

  /** The geometry of the last sync (null before). */
  get grid(): GridState | null {
    return this.geo
  }

  /** Writes before this point (line-major) are reported to `rewritten`. */
  protect(line: number, col: number): void {
    this.guarded = { line, col }
    this.reported = null
  }

  /** A sync point: tmux's state after every byte fed so far. */
  sync(state: GridState): "matched" | "adopted" | "mismatch" {
    this.reported = null
    const known = this.tracking
    if (known && this.predicts(state)) {
      this.continued = false
      this.geo = state
      this.hlimit = state.historyLimit
      return "matched"
    }
    if (known) this.lostAt = null
    this.lose("tmux's state is not the one the model predicted")
    this.continued = !known && this.continues(state)
    this.lostAt = null
    if (this.geo === null || state.height !== this.sy) [this.top, this.bottom] = [0, state.height - 1]
    if (this.geo !== null && state.width !== this.sx) this.tabsDefault = true
    // Trims while lost are unknown: unless none can have happened, number the rows past every line named so far.
    if (this.geo !== null && !this.continued) this.trim += this.hsize + this.sy
    this.geo = state
    this.hsize = state.historySize
    this.hlimit = state.historyLimit
    ;[this.sx, this.sy] = [state.width, state.height]
    ;[this.x, this.y, this.alt] = [state.cursorX, state.cursorY, state.alternate]
    this.saved =
      state.savedX === NO_CURSOR || state.savedY === NO_CURSOR ? null : { x: state.savedX, y: state.savedY }
    const m = state.modes
    if (m !== undefined) {
      ;[this.top, this.bottom, this.wrap, this.origin] = [m.scrollTop, m.scrollBottom, m.wrap, m.origin]
      this.altEnabled = m.alternateScreen
    }
    this.tracking = true
    return known ? "mismatch" : "adopted"
  }

  /** Printed text (VtSink's print): a cell each, once tmux surely counts it one. */
  print(text: string): void {
    for (const ch of text) {
      if (!this.tracking || this.alt) return
      const cp = ch.codePointAt(0)!
      if (isNarrow(cp)) this.cell()
      else this.lose(`a character whose width tmux may count otherwise (U+${cp.toString(16).toUpperCase()})`)
    }
  }

  /** A C0 control (VtSink's execute): BS, HT, LF/VT/FF and CR move; the rest do nothing. */
  execute(code: number): void {
    if (!this.tracking || this.alt) return
    if (code === 0x08 && this.x === 0 && this.y > 0) this.lose("a backspace at the start of a row")
    else if (code === 0x08 && this.x > 0) this.x -= 1
    else if (code === 0x09) this.tab()
    else if (code >= 0x0a && code <= 0x0c) this.lineFeed(false)
    else if (code === 0x0d) this.x = 0
    else if (code >= 0x80) this.lose(`a C1 control (0x${code.toString(16)})`)
  }

  /** A CSI sequence (VtSink's csi); without its intermediates, none are assumed. */
  csi(params: string, final: number, intermediates = ""): void {
    const prefix = /^[<=>?]/.test(params) ? params[0]! : ""
    const key = prefix + intermediates + String.fromCharCode(final)
    const args = parseParams(params.slice(prefix.length))
    const entry = csiEntry(key)
    if (params.length >= 63 || key.length > 4) this.lose("an over-long control sequence")
    else if (entry === "unknown") this.lose(`an unsupported control sequence (CSI ${key})`)
    if (args === null || entry !== "entry" || params.length >= 63 || key.length > 4) return
    this.modesCsi(key, args)
    if (this.tracking && !this.alt) this.moveCsi(key, args)
    else if (this.tracking && key === "J" && paramAt(args, 0, 0, 0) === 3)
      this.lose("the scrollback was cleared")
    // The history is gone (seen while lost too): no line named before it names its row again.
    if (key === "J" && paramAt(args, 0, 0, 0) === 3) this.lostAt = null
  }

  /** An escape sequence (VtSink's escape): ESC 7/8, D, E, M, c, H; charsets and keypad modes do nothing. */
  escape(final: number, intermediates: string): void {
    const key = intermediates + String.fromCharCode(final)
    const main = this.tracking && !this.alt
    if (key === "7") this.decsc = this.saveState()
    else if (key === "8") this.restoreState()
    else if (key === "H") this.tabsChanged()
    else if (key === "c") {
      ;[this.tabsDefault, this.top, this.bottom, this.wrap, this.origin] = [true, 0, this.sy - 1, true, false]
      this.lose("the terminal was reset (ESC c)")
    } else if ((key === "D" || key === "E") && main) {
      if (key === "E") this.x = 0
      this.lineFeed(false)
    } else if (key === "M" && main && this.y === this.top) this.lose("a reverse index scrolled the screen")
    else if (key === "M" && main && this.y > 0) this.y -= 1
    else if (!/^([()*+\-./].|[=>\\DEM])$/.test(key)) this.lose(`an unsupported escape sequence (ESC ${key})`)
  }

  /**
   * A string sequence began (kind as VtParser names it): no cursor move, but for a DCS on the main
   * screen, which may be a sixel image (tmux built with sixel support draws one, moving the cursor).
   */
  stringStart(kind: StringKind): void {
    if (kind === "DCS" && !this.alt) this.lose("a DCS string (a sixel image would move the cursor)")
  }

  /** A string sequence was cut off (VtParser's bound or timer): where tmux's parse went is in doubt. */
  abandoned(kind: StringKind): void {
    this.lose(`a cut-off ${kind} string`)
  }

  /** Whether `s` is what the model predicts: while alternate, the saved main cursor for the cursor. */
  private predicts(s: GridState): boolean {
    const m = s.modes
    const at = this.alt ? (this.saved ?? { x: NO_CURSOR, y: NO_CURSOR }) : { x: this.x, y: this.y }
    const want = [this.hsize, this.sx, this.sy, this.alt, at.x, at.y]
    const got = [
      s.historySize,
      s.width,
      s.height,
      s.alternate,
      ...(this.alt ? [s.savedX, s.savedY] : [s.cursorX, s.cursorY])
    ]
    if (m !== undefined) {
      want.push(this.top, this.bottom, this.wrap, this.origin, this.altEnabled)
      got.push(m.scrollTop, m.scrollBottom, m.wrap, m.origin, m.alternateScreen)
    }
    return want.every((value, i) => value === got[i])
  }

  /** The owner knows the stream is not whole (bytes missed or doubled): lose track until the next sync. */
  drop(reason: string): void {
    this.lose(reason)
  }

  private lose(reason: string): void {
    if (!this.tracking) return
    this.tracking = false
    this.lostAt = { historySize: this.hsize, historyLimit: this.hlimit, width: this.sx }
    this.listener.lost(reason)
  }

  /**
   * Whether the rows in the history when the model lost track are still where their lines name
   * them: the history was not cleared (no ED 3 seen since), the width (reflow) and limit are the
   * same, it did not shrink, and it is still short of the size at which tmux trims, which it
   * cannot have reached meanwhile (a trim leaves it at least at limit − step). An invisible
   * `tmux clear-history` followed by as many new rows escapes this (specs/security.md).
   */
  private continues(state: GridState): boolean {
    const at = this.lostAt
    if (at === null || state.width !== at.width || state.historyLimit !== at.historyLimit) return false
    const step = Math.max(1, Math.floor(at.historyLimit / 10))
    return state.historySize >= at.historySize && state.historySize < at.historyLimit - step
  }

  /** A write at screen row `y` from column `col`: reported when before the protected point. */
  private wrote(y: number, col: number): void {
    const at = { line: this.trim + this.hsize + y, col }
    if (this.guarded === null || !before(at, this.guarded)) return
    if (this.reported !== null && !before(at, this.reported)) return
    this.reported = at
    this.listener.rewritten(at.line, at.col)
  }

  /** One cell of width 1 (screen_write_collect_add, screen_write_cell). */
  private cell(): void {
    if (this.wrap && this.x > this.sx - 1) {
      this.lineFeed(true)
      this.x = 0
    }
    if (!this.tracking || this.x > this.sx - 1) return
    this.wrote(this.y, this.x)
    // Without autowrap tmux stops at the last column (its unsigned `cx <= sx - 2`: any column when sx is 1).
    this.x = this.wrap || this.sx < 2 || this.x <= this.sx - 2 ? this.x + 1 : this.sx - 1
  }

  /** HT: to the next stop (every 8), never past the last column; tmux 3.7 writes a tab cell. */
  private tab(): void {
    if (!this.tabsDefault) this.lose("a tab after the tab stops were changed")
    else if (this.x < this.sx - 1) {
      this.wrote(this.y, this.x)
      this.x = Math.min((Math.floor(this.x / 8) + 1) * 8, this.sx - 1)
    }
  }

  /** screen_write_linefeed: a scroll at the bottom of a full screen pushes its top row into the history. */
  private lineFeed(wrapped: boolean): void {
    if (wrapped) this.wrote(this.y, this.sx)
    if (this.y !== this.bottom) this.y = Math.min(this.y + 1, this.sy - 1)
    else if (this.top !== 0 || this.bottom !== this.sy - 1) this.lose("a scroll region scrolled")
    else if (this.hlimit === 0) this.lose("the pane keeps no history (history-limit 0)")
    else {
      if (this.hsize > 0 && this.hsize >= this.hlimit) {
        const step = Math.min(Math.max(1, Math.floor(this.hlimit / 10)), this.hsize)
        this.hsize -= step
        this.trim += step
      }
      this.hsize += 1
    }
  }

  /** screen_write_cursormove: with `origin`, a row counts from the scroll region's top in origin mode. */
  private moveTo(px: number | null, py: number | null, origin: boolean): void {
    if (origin && py !== null && this.origin) py = py > this.bottom - this.top ? this.bottom : py + this.top
    if (px !== null) this.x = Math.min(px, this.sx - 1)
    if (py !== null) this.y = Math.min(py, this.sy - 1)
  }

  /** CUU (n < 0) and CUD: stopped at the scroll region's edge, or the screen's outside it; off a pending wrap. */
  private vertical(n: number): void {
    if (this.x === this.sx) this.x -= 1
    if (n < 0) this.y -= Math.min(-n, this.y < this.top ? this.y : this.y - this.top)
    else this.y += Math.min(n, this.y > this.bottom ? this.sy - 1 - this.y : this.bottom - this.y)
  }

  private saveState(): SavedState {
    const main = this.tracking && !this.alt
    return { at: main ? { x: this.x, y: this.y } : null, origin: this.tracking ? this.origin : null }
  }

  /** DECRC: origin mode as saved, then the saved position (not relative to the region). */
  private restoreState(): void {
    const saved = this.decsc
    if (!this.tracking) return
    if (saved?.origin == null || (!this.alt && saved.at === null))
      this.lose("a cursor restore of a position saved before the model knew it")
    else {
      this.origin = saved.origin
      if (!this.alt && saved.at !== null) this.moveTo(saved.at.x, saved.at.y, false)
    }
  }

  private tabsChanged(): void {
    this.tabsDefault = false
    this.lose("the tab stops were changed")
  }

  /** What a CSI does to the state kept across screens and losses (and the alternate screen itself). */
  private modesCsi(key: string, args: Params): void {
    if (key === "g") this.tabsChanged()
    else if (key === "s") this.decsc = this.saveState()
    else if (key === "u") this.restoreState()
    else if (key === "r" && this.geo !== null) {
      const [n, m] = [paramAt(args, 0, 1, 1), paramAt(args, 1, 1, this.sy)]
      const [top, bottom] = [Math.min(n - 1, this.sy - 1), Math.min(m - 1, this.sy - 1)]
      if (n === -1 || m === -1 || top >= bottom) return
      ;[this.top, this.bottom] = [top, bottom]
      if (!this.tracking || this.alt) return
      this.moveTo(0, 0, false)
      if (top !== 0 || bottom !== this.sy - 1) this.lose("a scroll region was set")
    } else if (key === "?h" || key === "?l") {
      for (let i = 0; i < args.length; i++) this.privateMode(paramAt(args, i, 0, -1), key === "?h")
    }
  }

  private privateMode(mode: number, on: boolean): void {
    const main = this.tracking && !this.alt
    if (mode === 7) this.wrap = on
    else if (mode === 6) this.origin = on
    if (mode === 6 && main) this.moveTo(0, 0, true)
    else if (mode === 3 && main) this.lose("the screen was cleared (DECCOLM)")
    else if (mode === 1049 || mode === 1047 || mode === 47) this.alternate(on, mode === 1049)
  }

  /** ?1049h/l (`cursor`: the main cursor is saved and restored), ?1047 and ?47 (it is not). */
  private alternate(on: boolean, cursor: boolean): void {
    if (!this.altEnabled || !this.tracking || (on && this.alt)) return
    if (on && !cursor) this.lose("the alternate screen without a saved cursor (?47h, ?1047h)")
    else if (on) {
      this.saved = { x: this.x, y: this.y }
      this.alt = true
    } else if (this.alt && (!cursor || this.saved === null))
      this.lose("the alternate screen was left without restoring the cursor")
    else {
      if (cursor && this.saved !== null) [this.x, this.y] = [this.saved.x, this.saved.y]
      this.alt = false
      ;[this.x, this.y] = [Math.min(this.x, this.sx - 1), Math.min(this.y, this.sy - 1)]
    }
  }

  /** What a CSI of tmux's table does to the main screen's cursor (input_csi_dispatch). */
  private moveCsi(key: string, args: Params): void {
    const n = paramAt(args, 0, 1, 1)
    const e = paramAt(args, 0, 0, 0)
    if (n === -1 && "ABCDEFG`dHfZ@PX".includes(key)) return
    if (key === "A" || key === "B") this.vertical(key === "A" ? -n : n)
    else if (key === "C")
      this.x = this.x === this.sx ? this.sx - 1 : this.x + Math.min(n, this.sx - 1 - this.x)
    else if (key === "D") this.x -= Math.min(n, this.x)
    else if (key === "E" || key === "F") {
      this.x = 0
      this.vertical(key === "F" ? -n : n)
    } else if (key === "G" || key === "`") this.moveTo(n - 1, null, true)
    else if (key === "d") this.moveTo(null, n - 1, true)
    else if ((key === "H" || key === "f") && paramAt(args, 1, 1, 1) !== -1)
      this.moveTo(paramAt(args, 1, 1, 1) - 1, n - 1, true)
    else if (key === "Z" && !this.tabsDefault) this.lose("a back tab after the tab stops were changed")
    else if (key === "Z") {
      let cx = Math.min(this.x, this.sx - 1)
      for (let k = n; cx > 0 && k > 0; k--) cx = Math.ceil(cx / 8) * 8 - 8
      this.x = cx
    } else if (key === "J" && e === 0 && this.x === 0 && this.y === 0) this.lose("the screen was cleared")
    else if (key === "J" && e === 1) this.wrote(0, 0)
    else if (key === "J" && e === 2) this.lose("the screen was cleared")
    else if (key === "J" && e === 3) this.lose("the scrollback was cleared")
    else if ((key === "J" || key === "K") && e === 0) this.wrote(this.y, this.x)
    else if (key === "K" && (e === 1 || e === 2)) this.wrote(this.y, 0)
    else if (key === "@" || key === "P" || key === "X") this.wrote(this.y, this.x)
    else if ("LMST".includes(key)) this.lose(`rows were inserted, deleted or scrolled (CSI ${key})`)
    else if (key === "b") this.lose("a repeated character (CSI b)")
  }
}
