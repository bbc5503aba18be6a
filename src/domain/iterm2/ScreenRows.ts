/**
 * ScreenRows — the rows of an iTerm2 session's buffer as GetBuffer returns them, pure: rows joined
 * into logical lines (a soft-wrapped row continues on the next one), the last written row, the
 * screen with its absolute top row and cursor, the digest of a row (its text and how it ends), and
 * which rows a read of the screen's tail keeps and which history rows above it it must fetch.
 * Rows are absolute and never renumbered (HistoryPosition.ts).
 */
import type { GetBufferResponse, LineContents } from "../../generated/iterm2/Iterm2Messages.js"
import { rowDigest } from "../ReadCursor.js"

/** Rows → logical lines: a soft-wrapped row continues on the next one (proto2 default is HARD). */
export const joinRows = (rows: ReadonlyArray<LineContents>): Array<string> => {
  const lines: Array<string> = []
  let current = ""
  let open = false
  for (const row of rows) {
    current += row.text ?? ""
    open = true
    if ((row.continuation ?? "CONTINUATION_HARD_EOL") === "CONTINUATION_HARD_EOL") {
      lines.push(current)
      current = ""
      open = false
    }
  }
  if (open) lines.push(current)
  return lines
}

const isBlank = (row: LineContents) => (row.text ?? "").trim() === ""

/** The index of the last non-blank row after `index` (output below the cursor), else `index`. */
export const lastWrittenFrom = (rows: ReadonlyArray<LineContents>, index: number): number => {
  for (let i = rows.length - 1; i > index; i--) {
    const row = rows[i]
    if (row !== undefined && !isBlank(row)) return i
  }
  return index
}

/** The screen as one GetBuffer returns it: its rows, the absolute row of the top one, the cursor. */
export interface ScreenRows {
  readonly rows: ReadonlyArray<LineContents>
  readonly top: number
  /** Absolute; the row the next output goes to. */
  readonly cursor: { readonly x: number; readonly y: number }
}

/** The screen in a GetBuffer reply of the screen's contents only. */
export const screenOf = (reply: GetBufferResponse): ScreenRows => {
  const top = reply.windowed_coord_range?.coord_range?.start?.y ?? 0
  return {
    rows: reply.contents ?? [],
    top,
    cursor: { x: reply.cursor?.x ?? 0, y: reply.cursor?.y ?? top }
  }
}

/** The digest of one row's exact text and how it ends (a row that went on wrapping has changed). */
export const digestOfRow = (row: LineContents): string =>
  rowDigest(`${row.continuation ?? "CONTINUATION_HARD_EOL"}\n${row.text ?? ""}`)

/** The digest of the cursor's own row, null when the cursor is not on a row of the screen. */
export const cursorRowDigest = (screen: ScreenRows): string | null => {
  const row = screen.rows[screen.cursor.y - screen.top]
  return row === undefined ? null : digestOfRow(row)
}

/** Absolute rows `[first, end)` to fetch from the history. */
export interface RowRange {
  readonly first: number
  readonly end: number
}

/** Whether a fetch of `range` brought back every row of it (the history may hold fewer). */
export const fullyFetched = (range: RowRange, fetched: ReadonlyArray<LineContents>): boolean =>
  fetched.length === range.end - range.first

/** What a read of the screen's tail keeps of the screen, and what it must fetch above it. */
export interface ScreenTail {
  /** The screen's rows kept, newest last, down to the last written one. */
  readonly onScreen: ReadonlyArray<LineContents>
  /** The history rows to fetch above the screen, null when none are wanted. */
  readonly above: RowRange | null
  /** Rows above the kept ones left out, as far as the screen alone tells (without `above`). */
  readonly cut: boolean
}

/**
 * The screen's tail, at most `maxLines` rows down to the last written one (the cursor's row, or
 * output below it), and the history rows just above the screen that fill up the rest.
 */
export const screenTail = (screen: ScreenRows, maxLines: number): ScreenTail => {
  const { rows, top, cursor } = screen
  const last = lastWrittenFrom(rows, Math.min(rows.length - 1, Math.max(cursor.y - top, -1)))
  const onScreen = rows.slice(Math.max(0, last + 1 - maxLines), last + 1)
  const need = maxLines - onScreen.length
  const above = need > 0 && top > 0 ? { first: Math.max(0, top - need), end: top } : null
  return { onScreen, above, cut: onScreen.length < last + 1 }
}

/** Whether history rows older than a fetched `range` are left out: it started above row 0 and came back whole. */
export const olderLeftOut = (range: RowRange, fetched: ReadonlyArray<LineContents>): boolean =>
  range.first > 0 && fullyFetched(range, fetched)
