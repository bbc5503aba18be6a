/**
 * A read of an iTerm2 session from an earlier read's cursor on: the rows from that absolute row to
 * the last written one, tail-bounded, fetching no more rows than it may return (beyond the screen
 * read every read starts with). iTerm2's rows are absolute and never renumbered, so the position
 * is lost exactly when its row left the history (below `overflow`). The position's own row comes
 * back only when its text changed since the read that gave the cursor: nothing new is nothing.
 */
import { Effect } from "effect"
import { boundTail } from "../../../domain/TextBounds.js"
import type { LineContents } from "../../../generated/iterm2/Iterm2Messages.js"
import { fail, type TermPilotError } from "../../../services/Errors.js"
import type { BoundedText, CursorPosition, ReadBounds } from "../../../services/Terminal.js"
import { callFor, getLines, orUnavailable, parseJson } from "./Calls.js"
import type { Iterm2Connection } from "./ConnectionService.js"
import { cursorRowDigest, digestOfRow, joinRows, lastWrittenFrom, screenRows } from "./Read.js"

type Conn = Iterm2Connection["Service"]

export interface SinceText extends BoundedText {
  readonly cursorRow: number
  readonly cursorRowDigest: string | null
  readonly cursorLost: boolean
}

/** Lines dropped off the top of the history so far (`number_of_lines`, §4.1). */
const overflowOf = (conn: Conn, sessionId: string): Effect.Effect<number, TermPilotError> =>
  callFor(
    conn,
    { get_property_request: { session_id: sessionId, name: "number_of_lines" } },
    "get_property_response"
  ).pipe(
    Effect.flatMap((reply) => {
      const parsed = reply.status === "OK" || reply.status === undefined ? parseJson(reply.json_value) : null
      const overflow = (parsed as { overflow?: unknown } | null)?.overflow
      return typeof overflow === "number" && Number.isInteger(overflow) && overflow >= 0
        ? Effect.succeed(overflow)
        : Effect.fail(fail("output_unavailable", "iTerm2 did not report the session's line numbers."))
    })
  )

/**
 * Rows [`since` .. last written] of the session, newest `maxLines` kept. The last written row is
 * the cursor's when the cursor is past column 0, else the one before it, or any non-blank row
 * below. A `since` row below the kept history (or past the last row there is) is lost: then the
 * kept tail is returned with `cursorLost`.
 */
export const readSince = (
  conn: Conn,
  sessionId: string,
  bounds: ReadBounds,
  position: CursorPosition
): Effect.Effect<SinceText, TermPilotError> =>
  Effect.gen(function* () {
    const screen = yield* screenRows(conn, sessionId)
    const { rows, top, cursor } = screen
    const end = top + rows.length
    const since = position.row
    let start = since
    let cursorLost = false
    if (since < top || since >= end) {
      const overflow = yield* overflowOf(conn, sessionId)
      if (since < overflow || since >= end) {
        start = overflow
        cursorLost = true
      }
    }
    const last = top + lastWrittenFrom(rows, (cursor.x > 0 ? cursor.y : cursor.y - 1) - top)
    const done = { cursorRow: cursor.y, cursorRowDigest: cursorRowDigest(screen), cursorLost }
    if (!cursorLost && position.rowDigest !== null && start <= last) {
      const own =
        start >= top ? rows[start - top] : (yield* getLines(conn, sessionId, start, start + 1)).contents?.[0]
      if (own !== undefined && digestOfRow(own) === position.rowDigest) start++
    }
    if (last < start) return { text: "", lineCount: 0, truncated: false, ...done }
    const first = Math.max(start, last + 1 - Math.floor(bounds.maxLines))
    let above: ReadonlyArray<LineContents> = []
    if (first < top) above = (yield* getLines(conn, sessionId, first, Math.min(top, last + 1))).contents ?? []
    const onScreen = rows.slice(Math.max(0, first - top), last + 1 - top)
    const whole = first >= top || above.length === Math.min(top, last + 1) - first
    const bounded = boundTail(joinRows([...above, ...onScreen]), bounds)
    return { ...bounded, truncated: bounded.truncated || first > start || !whole, ...done }
  }).pipe(conn.transaction, Effect.mapError(orUnavailable))
