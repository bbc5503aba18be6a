/**
 * RowRules — what RowModel reads of tmux, pure: its state at a sync point (a `display -p` reply),
 * how it splits and reads a control sequence's parameters (input.c: input_split, input_get, its CSI
 * table), and which characters it surely gives one cell. ASCII is one cell in every tmux; any other
 * character's width comes from the platform's wcwidth (or utf8proc) and, from 3.5, the
 * `codepoint-widths` option, and 3.4+ may merge it into the cell before (emoji modifiers, joiners,
 * Hangul jamo). Only long-assigned letters, punctuation and symbols that no platform draws wide and
 * tmux never merges are counted; the rest are unknown, and RowModel gives up on them.
 */

/** tmux's state at a sync point, from `display -p` formats. */
export interface GridState {
  readonly historySize: number
  readonly historyLimit: number
  readonly width: number
  readonly height: number
  readonly cursorX: number
  readonly cursorY: number
  readonly alternate: boolean
  /** The main screen's cursor saved by ?1049h, NO_CURSOR when none (tmux keeps it after ?1049l). */
  readonly savedX: number
  readonly savedY: number
  /** The modes that steer the cursor (GRID_FORMAT reads them); absent: RowModel keeps its own. */
  readonly modes?: GridModes
}

/** Screen modes that change how tmux moves the cursor. */
export interface GridModes {
  /** The scroll region, screen rows `scrollTop..scrollBottom`. */
  readonly scrollTop: number
  readonly scrollBottom: number
  /** DECAWM (autowrap) and DECOM (origin mode). */
  readonly wrap: boolean
  readonly origin: boolean
  /** The pane's `alternate-screen` option: off, tmux ignores ?1049h and the rest. */
  readonly alternateScreen: boolean
}

/** tmux's "no saved cursor" (UINT_MAX). */
export const NO_CURSOR = 4294967295

/** The display -p format string whose reply `parseGridState` reads. */
export const GRID_FORMAT =
  "tp-grid #{history_size} #{history_limit} #{pane_width} #{pane_height} #{cursor_x} #{cursor_y} " +
  "#{alternate_on} #{alternate_saved_x} #{alternate_saved_y} #{scroll_region_upper} " +
  "#{scroll_region_lower} #{wrap_flag} #{origin_flag} #{alternate-screen}"

/** The reply to GRID_FORMAT; null for anything else. */
export const parseGridState = (line: string): GridState | null => {
  const fields = line.trim().split(/\s+/)
  if (fields.length !== 15 || fields[0] !== "tp-grid") return null
  // A flag option reads 1/0 in a format (on/off accepted too).
  const values = [...fields.slice(1, 14), fields[14]!.replace(/^on$/, "1").replace(/^off$/, "0")]
  if (!values.every((f) => /^\d{1,10}$/.test(f))) return null
  const [hs, hl, w, h, cx, cy, alt, sx, sy, top, bottom, wrap, origin, enabled] = values.map(Number) as [
    ...Array<number>
  ]
  if (w! < 1 || h! < 1 || [alt, wrap, origin, enabled].some((flag) => flag! > 1)) return null
  return {
    historySize: hs!,
    historyLimit: hl!,
    width: w!,
    height: h!,
    cursorX: cx!,
    cursorY: cy!,
    alternate: alt === 1,
    savedX: sx!,
    savedY: sy!,
    modes: {
      scrollTop: top!,
      scrollBottom: bottom!,
      wrap: wrap === 1,
      origin: origin === 1,
      alternateScreen: enabled === 1
    }
  }
}

/** A sequence's parameters: a number, missing (undefined), or one with sub-parameters (null). */
export type Params = ReadonlyArray<number | null | undefined>

/** input_split: null when tmux ignores the whole sequence (a number past INT_MAX, 24 parameters or more). */
export const parseParams = (text: string): Params | null => {
  const parts = text === "" ? [] : text.split(";")
  if (parts.length >= 24) return null
  const out: Array<number | null | undefined> = []
  for (const part of parts) {
    if (part.includes(":")) out.push(null)
    else if (part === "") out.push(undefined)
    else if (!/^\d+$/.test(part) || Number(part) > 2147483647) return null
    else out.push(Number(part))
  }
  return out
}

/** input_get: parameter `i`, `fallback` when missing, at least `min`; -1 for one with sub-parameters. */
export const paramAt = (params: Params, i: number, min: number, fallback: number): number => {
  const value = params[i]
  if (value === undefined) return fallback
  return value === null ? -1 : Math.max(value, min)
}

/** tmux's CSI table (3.2a–3.7c, the same but for queries): private prefix, intermediates, final. */
const CSI_TABLE = new Set([
  ..."@ABCDEFGHJKLMPSTXZ`bcdfghlmnrstu",
  ...["?S", ">c", "?h", "?l", ">m", ">n", "?n", "$p", "?$p", " q", ">q"]
])
const CSI_FINALS = new Set([...CSI_TABLE].map((key) => key.slice(-1)))

/** "entry": tmux dispatches it; "ignored": tmux has no entry for it; "unknown": nor for its final. */
export const csiEntry = (key: string): "entry" | "ignored" | "unknown" => {
  if (CSI_TABLE.has(key)) return "entry"
  return CSI_FINALS.has(key.slice(-1)) ? "ignored" : "unknown"
}

/** Code point ranges (inclusive) every tmux and platform gives one cell and never merges. */
const NARROW: ReadonlyArray<readonly [number, number]> = [
  [0x20, 0x7e], // ASCII
  [0xa0, 0xac], // Latin-1 (not the soft hyphen U+00AD)
  [0xae, 0x24f], // Latin-1, Latin Extended-A and -B
  [0x370, 0x377], // Greek (assigned, no combining marks)
  [0x37a, 0x37f],
  [0x384, 0x38a],
  [0x38c, 0x38c],
  [0x38e, 0x3a1],
  [0x3a3, 0x3ff],
  [0x400, 0x482], // Cyrillic (not the combining U+0483–U+0489)
  [0x48a, 0x52f],
  [0x2010, 0x2027], // dashes, quotes, bullets, ellipsis
  [0x2030, 0x205e],
  [0x20a0, 0x20bf], // currency
  [0x2100, 0x214f], // letterlike
  [0x2190, 0x21ff], // arrows
  [0x2200, 0x22ff], // mathematical operators
  [0x23ce, 0x23ce], // ⏎ (fish marks output that ended without a newline with it)
  [0x2500, 0x25fc], // box drawing, blocks, geometric shapes (not the wide U+25FD/U+25FE)
  [0x2713, 0x2718], // check marks and crosses
  [0x276e, 0x276f], // ❮ ❯
  [0x279c, 0x279c] // ➜
]

/** Whether every tmux gives the character exactly one cell. */
export const isNarrow = (cp: number): boolean => NARROW.some(([lo, hi]) => cp >= lo && cp <= hi)
