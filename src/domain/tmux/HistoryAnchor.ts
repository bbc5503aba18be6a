/**
 * HistoryAnchor — read positions in one tmux pane, pure. A position is the absolute row of the
 * cursor (history_size + cursor_y: row 0 is the oldest kept history row) plus an anchor, the
 * 16-hex sha256 digest of the up to 3 exact rows above it. tmux drops the oldest
 * max(1, floor(history_limit / 10)) rows each time its history is full, which moves every
 * absolute row up by that step; the anchor finds a position again after k such trims. Rows are
 * asked of `capture-pane` in its own coordinates (0 = top of the screen, negative = history).
 */
import { rowDigest } from "../ReadCursor.js"

/** What the pane's flag row says about its grid. */
export interface PaneGeometry {
  readonly historySize: number
  readonly cursorY: number
  readonly height: number
  readonly historyLimit: number
}

/** Rows `start..end` (inclusive) in capture-pane coordinates; `start <= end` always. */
export interface RowSpan {
  readonly start: number
  readonly end: number
}

/** Rows hashed into an anchor, and how many trims a search looks back over. */
export const ANCHOR_ROWS = 3
export const MAX_TRIMS = 10

const num = (value: string): number => {
  const n = Number(value)
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0
}

export const geometryOf = (row: {
  readonly history_size: string
  readonly cursor_y: string
  readonly pane_height: string
  readonly history_limit: string
}): PaneGeometry => ({
  historySize: num(row.history_size),
  cursorY: num(row.cursor_y),
  height: Math.max(1, num(row.pane_height)),
  historyLimit: num(row.history_limit)
})

export const sameGeometry = (a: PaneGeometry, b: PaneGeometry): boolean =>
  a.historySize === b.historySize &&
  a.cursorY === b.cursorY &&
  a.height === b.height &&
  a.historyLimit === b.historyLimit

/** The absolute row of the cursor. */
export const cursorRow = (g: PaneGeometry): number => g.historySize + g.cursorY

/** How many rows tmux drops from the history at a time. */
export const trimStep = (g: PaneGeometry): number => Math.max(1, Math.floor(g.historyLimit / 10))

/** The last row of the screen, in capture coordinates (the cursor may sit below a short screen). */
export const bottomOf = (g: PaneGeometry): number => Math.max(g.cursorY, g.height - 1)

/** The digest of exact rows (as capture-pane prints them without -J). */
export const anchorOf = (rows: ReadonlyArray<string>): string => rowDigest(rows.join("\n"))

/**
 * The span of the anchor rows of absolute row `row` now: null for row 0 (nothing above it) or a
 * row that is not in the pane (beyond its last row).
 */
export const anchorSpan = (g: PaneGeometry, row: number): RowSpan | null => {
  if (row <= 0 || row > g.historySize + bottomOf(g)) return null
  return { start: Math.max(0, row - ANCHOR_ROWS) - g.historySize, end: row - 1 - g.historySize }
}

/**
 * The rows from absolute row `from` (bounded to the newest `maxLines` rows up to the cursor row) to
 * the bottom, and whether rows after `from` were left out by that bound. `from` 0 is everything kept.
 */
export const textSpan = (
  g: PaneGeometry,
  from: number,
  maxLines: number
): { span: RowSpan; leftOut: boolean } => {
  const start = Math.max(from, cursorRow(g) - maxLines + 1, 0)
  const span = { start: start - g.historySize, end: bottomOf(g) }
  return { span: span.start <= span.end ? span : { start: span.end, end: span.end }, leftOut: start > from }
}

/**
 * The exact rows to capture to find the anchor of absolute row `row` (as `asked` numbers it) when
 * the pane may scroll by up to `slack` rows before tmux runs the capture: the anchor rows and
 * `slack` rows above them. Null when `row` is not in the pane (or is row 0, which has no anchor).
 */
export const probeSpan = (asked: PaneGeometry, row: number, slack: number): RowSpan | null => {
  const span = anchorSpan(asked, row)
  return span === null ? null : { start: span.end - ANCHOR_ROWS + 1 - slack, end: span.end }
}

/**
 * Where the anchor `anchor` of row `row` (as `asked` numbers it) is in rows captured from `span`
 * while the pane had geometry `now`: tmux numbers capture rows from the screen's top, so a pane
 * that scrolled by `s` rows meanwhile has the row `s` rows higher; `s` is the history's growth,
 * plus a step per trim. The row as `now` numbers it, or null when the anchor is not there.
 */
export const findInProbe = (
  asked: PaneGeometry,
  now: PaneGeometry,
  row: number,
  span: RowSpan,
  rows: ReadonlyArray<string>,
  anchor: string
): number | null => {
  // tmux starts a capture at the oldest kept row when asked for more.
  const first = Math.max(span.start, -now.historySize)
  const visible = row - asked.historySize
  const step = trimStep(now)
  for (let s = now.historySize - asked.historySize; s <= span.end - span.start; s += step) {
    if (s < 0) continue
    const at = now.historySize + visible - s
    const anchorRows = anchorSpan(now, at)
    if (anchorRows === null) continue
    const from = anchorRows.start - first
    const to = anchorRows.end - first
    if (from >= 0 && to < rows.length && anchorOf(rows.slice(from, to + 1)) === anchor) return at
  }
  return null
}

/** Where a position of row `row` may be after 1..MAX_TRIMS trims (rows that are still kept). */
export const trimmedRows = (g: PaneGeometry, row: number): ReadonlyArray<number> => {
  const step = trimStep(g)
  const rows: Array<number> = []
  for (let k = 1; k <= MAX_TRIMS && row - k * step > 0; k++) rows.push(row - k * step)
  return rows
}

/**
 * A position of row 0 has no anchor rows: it still names the oldest row while no trim can have
 * happened since, i.e. while the history is shorter than limit minus one step.
 */
export const rowZeroHolds = (g: PaneGeometry): boolean => g.historySize < g.historyLimit - trimStep(g)
