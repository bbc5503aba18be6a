/**
 * A read of an iTerm2 session from an earlier read's cursor on: the rows from that absolute row to
 * the last written one, tail-bounded, fetching no more rows than it may return (beyond the screen
 * read every read starts with). Where it starts, whether the position is lost and which rows it
 * returns are the pure rules of src/domain/iterm2/HistoryPosition.ts.
 */
import { Effect } from "effect"
import {
  lastWrittenRow,
  onScreen,
  sinceStart,
  sinceWindow,
  unchangedRow
} from "../../../domain/iterm2/HistoryPosition.js"
import { cursorRowDigest, fullyFetched, joinRows } from "../../../domain/iterm2/ScreenRows.js"
import { boundTail } from "../../../domain/TextBounds.js"
import { fail, type TermPilotError } from "../../../services/Errors.js"
import type { BoundedText, CursorPosition, ReadBounds } from "../../../services/Terminal.js"
import { getLines, linesOverflow, orUnavailable } from "./Calls.js"
import type { Iterm2Connection } from "./ConnectionService.js"
import { screenRows } from "./Read.js"

type Conn = Iterm2Connection["Service"]

export interface SinceText extends BoundedText {
  readonly cursorRow: number
  readonly cursorRowDigest: string | null
  readonly cursorLost: boolean
}

/** Lines dropped off the top of the history so far (`number_of_lines`, §4.1). */
const overflow = (conn: Conn, sessionId: string): Effect.Effect<number, TermPilotError> =>
  linesOverflow(conn, sessionId).pipe(
    Effect.flatMap((lines) =>
      lines !== null
        ? Effect.succeed(lines)
        : Effect.fail(fail("output_unavailable", "iTerm2 did not report the session's line numbers."))
    )
  )

/**
 * Rows [`since` .. last written] of the session, newest `maxLines` kept. A `since` row below the
 * kept history (or past the last row there is) is lost: then the kept tail is returned with
 * `cursorLost`. The position's own row comes back only when its text changed since the read that
 * gave the cursor: nothing new is nothing.
 */
export const readSince = (
  conn: Conn,
  sessionId: string,
  bounds: ReadBounds,
  position: CursorPosition
): Effect.Effect<SinceText, TermPilotError> =>
  Effect.gen(function* () {
    const screen = yield* screenRows(conn, sessionId)
    const { start: from, lost } = onScreen(screen, position.row)
      ? { start: position.row, lost: false }
      : sinceStart(screen, position.row, yield* overflow(conn, sessionId))
    let start = from
    const last = lastWrittenRow(screen)
    const done = { cursorRow: screen.cursor.y, cursorRowDigest: cursorRowDigest(screen), cursorLost: lost }
    if (!lost && position.rowDigest !== null && start <= last) {
      const own = onScreen(screen, start)
        ? screen.rows[start - screen.top]
        : (yield* getLines(conn, sessionId, start, start + 1)).contents?.[0]
      if (unchangedRow(own, position.rowDigest)) start++
    }
    if (last < start) return { text: "", lineCount: 0, truncated: false, ...done }
    const window = sinceWindow(screen, start, last, bounds.maxLines)
    const above =
      window.above === null
        ? []
        : ((yield* getLines(conn, sessionId, window.above.first, window.above.end)).contents ?? [])
    const whole = window.above === null || fullyFetched(window.above, above)
    const bounded = boundTail(joinRows([...above, ...window.onScreen]), bounds)
    return { ...bounded, truncated: bounded.truncated || window.first > start || !whole, ...done }
  }).pipe(conn.transaction, Effect.mapError(orUnavailable))
