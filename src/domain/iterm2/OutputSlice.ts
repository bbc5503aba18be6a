/**
 * OutputSlice — a bounded part of one command's output in an iTerm2 session, pure: the rows a
 * read from the head, from a line offset or of the newest lines (the tail) fetches, at most
 * `maxLines`, and what it returns. A row of the buffer counts as one line (a line iTerm2 wrapped
 * counts its rows). Rows leave the history oldest first, so rows that left before the fetch come
 * back missing at the start: they are counted as lost, never made up with rows of a neighbour.
 */
import type { LineContents } from "../../generated/iterm2/Iterm2Messages.js"
import { type BoundedText, boundHead, boundTail, type ReadBounds } from "../TextBounds.js"
import { lastRowBefore, type OutputSpan, outputLines, rowCount } from "./OutputRange.js"
import type { RowRange } from "./ScreenRows.js"

/** Where a read starts: the newest lines (`tail`), the first line (`head`) or a line offset. */
export type SliceFrom = "tail" | "head" | number

/** The rows of the output one read fetches. */
export interface OutputSlice {
  /** Lines of output in all. */
  readonly totalLines: number
  /** The offset of the window's first row from the output's first row. */
  readonly offset: number
  /** Absolute rows to fetch; null when the read returns none. */
  readonly window: RowRange | null
}

export const sliceOf = (span: OutputSpan, from: SliceFrom, maxLines: number): OutputSlice => {
  const totalLines = rowCount(span.start, span.end)
  const count = Math.max(0, Math.floor(maxLines))
  const offset =
    from === "tail"
      ? Math.max(0, totalLines - count)
      : from === "head"
        ? 0
        : Math.min(totalLines, Math.max(0, Math.floor(from)))
  const rows = Math.min(count, totalLines - offset)
  const first = (span.start.y ?? 0) + offset
  return { totalLines, offset, window: rows > 0 ? { first, end: first + rows } : null }
}

/**
 * Whether lost lines can lie before the window, so that the read must also learn how many lines
 * left the history (`number_of_lines`' overflow): only when the window does not start the output.
 */
export const needsOverflow = (slice: OutputSlice): boolean => slice.window !== null && slice.offset > 0

/** What one read returns. */
export interface SliceText extends BoundedText {
  readonly totalLines: number
  /** The offset, in lines from the output's start, of the first line of `text`. */
  readonly firstLine: number
  /** Lines at the output's start that left the history. */
  readonly lostLines: number
}

/**
 * The read's text from the rows `fetched` for `slice.window` (fewer when rows left the history:
 * the missing ones are the oldest), bounded by `bounds` from `from`. `overflow` is the first row
 * still kept, when asked (`needsOverflow`). Only the output's own cells are returned: its first
 * row from the output's start column, its last up to the next prompt.
 */
export const sliceText = (
  span: OutputSpan,
  slice: OutputSlice,
  from: SliceFrom,
  fetched: ReadonlyArray<LineContents>,
  overflow: number | null,
  bounds: ReadBounds
): SliceText => {
  const { totalLines, window } = slice
  if (window === null)
    return {
      text: "",
      lineCount: 0,
      truncated: totalLines > 0,
      totalLines,
      firstLine: slice.offset,
      lostLines: 0
    }
  const startY = span.start.y ?? 0
  const missing = Math.max(0, window.end - window.first - fetched.length)
  const kept = { first: window.first + missing, end: window.end }
  const lostLines =
    missing > 0 ? kept.first - startY : Math.min(Math.max(0, (overflow ?? 0) - startY), kept.first - startY)
  // Cut at the next prompt's column only when the window holds the output's last row.
  const end = window.end > lastRowBefore(span.end) ? span.end : { x: 0, y: window.end }
  const { lines } = outputLines({ ...span, end }, kept, fetched)
  const bounded = from === "tail" ? boundTail(lines, bounds) : boundHead(lines, bounds)
  const firstLine = kept.first - startY + (from === "tail" ? lines.length - bounded.lineCount : 0)
  return {
    ...bounded,
    truncated: bounded.truncated || kept.first > startY || window.end < startY + totalLines,
    totalLines,
    firstLine,
    lostLines
  }
}
