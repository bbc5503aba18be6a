/**
 * OutputRange — where one command's output is in an iTerm2 session's buffer, pure. iTerm2 reports
 * a prompt's output range from the row after its command line to the cursor, so the end is clamped
 * to the next prompt's start; an end at column 0 excludes its row. When the prompt scrolled out of
 * the history, what is kept ends at the oldest prompt still kept. The next prompt's start may be
 * known from its notification, when it is no earlier than the output's start. A read returns the newest rows
 * of the range (cut at its start and end columns) and counts every row of it.
 */
import type { Coord, GetPromptResponse, LineContents } from "../../generated/iterm2/Iterm2Messages.js"
import { joinRows, type RowRange } from "./ScreenRows.js"

/** Whether `a` comes before `b` in the buffer. */
export const before = (a: Coord, b: Coord): boolean =>
  (a.y ?? 0) < (b.y ?? 0) || (a.y === b.y && (a.x ?? 0) < (b.x ?? 0))

/** Where a prompt starts (its prompt, else its command line); undefined when iTerm2 gave neither. */
export const promptStart = (prompt: GetPromptResponse | undefined): Coord | undefined =>
  prompt?.prompt_range?.start ?? prompt?.command_range?.start

/** The prompt after `promptId` among `later` (the ids from `promptId` on), if there is one. */
export const nextPromptId = (later: ReadonlyArray<string>, promptId: string): string | undefined => {
  const at = later.indexOf(promptId)
  return at < 0 ? undefined : later[at + 1]
}

/** Where output reported up to `cursor` ends: at the next prompt's `start` when that comes first. */
export const clampToStart = (cursor: Coord, start: Coord | undefined): Coord =>
  start !== undefined && before(start, cursor) ? start : cursor

/** Where output reported up to `cursor` ends: at the next prompt's start when that comes first. */
export const clampToPrompt = (cursor: Coord, next: GetPromptResponse | undefined): Coord =>
  clampToStart(cursor, promptStart(next))

/**
 * Whether a next prompt's start known from its notification may be used for an output range
 * starting at `outputStart`: a prompt drawn after the command cannot start before its output.
 */
export const plausibleNextStart = (start: Coord | undefined, outputStart: Coord): start is Coord =>
  start !== undefined && !before(start, outputStart)

/** The output range a prompt reports, null when iTerm2 reports no rows for it. */
export const reportedRange = (
  prompt: GetPromptResponse
): { readonly start: Coord; readonly cursor: Coord } | null => {
  const start = prompt.output_range?.start
  const cursor = prompt.output_range?.end
  return start?.y === undefined || cursor?.y === undefined ? null : { start, cursor }
}

/** The last row holding output that ends at `end` (exclusive: at column 0, the row before). */
export const lastRowBefore = (end: Coord): number => ((end.x ?? 0) > 0 ? (end.y ?? 0) : (end.y ?? 0) - 1)

/** Rows of output from `start` to `end`. */
export const rowCount = (start: Coord, end: Coord): number =>
  Math.max(0, lastRowBefore(end) - (start.y ?? 0) + 1)

/** Where one command's output is. */
export interface OutputSpan {
  readonly start: Coord
  readonly end: Coord
  /** False when the start scrolled out of the history: whatever is still kept is a tail. */
  readonly complete: boolean
}

/** What is kept of the output of a prompt that scrolled out of the history: everything up to `end`. */
export const lostPromptSpan = (end: Coord): OutputSpan => ({ start: { x: 0, y: 0 }, end, complete: false })

/** The rows of `span` a read of at most `maxLines` rows fetches (the newest); null when it has none. */
export const outputWindow = (span: OutputSpan, maxLines: number): RowRange | null => {
  const startY = span.start.y ?? 0
  const lastRow = lastRowBefore(span.end)
  if (lastRow < startY) return null
  return { first: Math.max(startY, lastRow - maxLines + 1), end: lastRow + 1 }
}

/** The output's lines from the rows fetched for `window`, before the read's own bounds. */
export interface OutputLines {
  readonly lines: ReadonlyArray<string>
  /** Output left out: rows above the window, rows the fetch did not return, or a lost start. */
  readonly cut: boolean
  /** Lines in all (rows above the window count one line each); null when that cannot be told. */
  readonly totalLines: number | null
}

const cutRow = (row: LineContents, from: number, to?: number): LineContents => ({
  ...row,
  text: [...(row.text ?? "")].slice(from, to).join("")
})

export const outputLines = (
  span: OutputSpan,
  window: RowRange,
  fetched: ReadonlyArray<LineContents>
): OutputLines => {
  const startY = span.start.y ?? 0
  const startX = span.start.x ?? 0
  const endX = span.end.x ?? 0
  const rows = [...fetched]
  const whole = rows.length === window.end - window.first
  const lastRow = rows[rows.length - 1]
  if (endX > 0 && lastRow !== undefined) rows[rows.length - 1] = cutRow(lastRow, 0, endX)
  const firstRow = rows[0]
  if (whole && window.first === startY && startX > 0 && firstRow !== undefined)
    rows[0] = cutRow(firstRow, startX)
  const lines = joinRows(rows)
  return {
    lines,
    cut: window.first > startY || !whole || !span.complete,
    totalLines: span.complete && whole ? window.first - startY + lines.length : null
  }
}
