/**
 * HistoryPosition — read positions in one iTerm2 session, pure. A position is the absolute row of
 * the cursor at an earlier read (plus the digest of that row's text then). iTerm2's rows are
 * absolute and never renumbered: lines that leave the top of the history are counted in
 * `number_of_lines`' `overflow`, so a position is lost exactly when its row is below `overflow` (or
 * past the last row there is). A read from a position returns the rows from it to the last written
 * one, newest `maxLines` kept; the position's own row only when its text changed since.
 */
import type { GetPropertyResponse, LineContents } from "../../generated/iterm2/Iterm2Messages.js"
import { digestOfRow, lastWrittenFrom, type RowRange, type ScreenRows } from "./ScreenRows.js"
import { parseJson } from "./VariableValue.js"

/** Lines dropped off the top of the history so far, from a `number_of_lines` reply; null when not reported. */
export const overflowOf = (reply: GetPropertyResponse): number | null => {
  const parsed = reply.status === "OK" || reply.status === undefined ? parseJson(reply.json_value) : null
  const overflow = (parsed as { overflow?: unknown } | null)?.overflow
  return typeof overflow === "number" && Number.isInteger(overflow) && overflow >= 0 ? overflow : null
}

/** Whether absolute `row` is on the screen as read (then no history lookup is needed). */
export const onScreen = (screen: ScreenRows, row: number): boolean =>
  row >= screen.top && row < screen.top + screen.rows.length

/**
 * The last written row, absolute: the cursor's when the cursor is past column 0, else the one
 * before it, or any non-blank row below.
 */
export const lastWrittenRow = (screen: ScreenRows): number => {
  const { rows, top, cursor } = screen
  return top + lastWrittenFrom(rows, (cursor.x > 0 ? cursor.y : cursor.y - 1) - top)
}

/** Where a read from `row` starts. */
export interface SinceStart {
  readonly start: number
  /** `row` left the history (or is past the last row there is): the read starts at the oldest kept row. */
  readonly lost: boolean
}

/** Where a read from `row` starts, given the oldest row still kept (`overflow`). */
export const sinceStart = (screen: ScreenRows, row: number, overflow: number): SinceStart =>
  row < overflow || row >= screen.top + screen.rows.length
    ? { start: overflow, lost: true }
    : { start: row, lost: false }

/** Whether the position's own row reads as it did (`digest`, from the read that gave the cursor). */
export const unchangedRow = (row: LineContents | undefined, digest: string): boolean =>
  row !== undefined && digestOfRow(row) === digest

/** The rows a read of [`start` .. `last`] returns: at most `maxLines`, newest kept. */
export interface SinceWindow {
  /** The first row returned, absolute. */
  readonly first: number
  /** The history rows to fetch above the screen, null when all returned rows are on it. */
  readonly above: RowRange | null
  /** The screen's rows returned. */
  readonly onScreen: ReadonlyArray<LineContents>
}

export const sinceWindow = (
  screen: ScreenRows,
  start: number,
  last: number,
  maxLines: number
): SinceWindow => {
  const { rows, top } = screen
  const first = Math.max(start, last + 1 - Math.floor(maxLines))
  return {
    first,
    above: first < top ? { first, end: Math.min(top, last + 1) } : null,
    onScreen: rows.slice(Math.max(0, first - top), last + 1 - top)
  }
}
