/**
 * Bounded text from iTerm2's buffer: the screen plus scrollback tail of a session, and the tail of
 * one command's output range. Each read fetches only the rows it may return (plus, for the screen,
 * the blank rows below the last written one), inside one transaction so coordinates stay valid.
 */
import { Effect } from "effect"
import { rowDigest } from "../../../domain/ReadCursor.js"
import { boundTail } from "../../../domain/TextBounds.js"
import type { Coord, GetPromptResponse, LineContents } from "../../../generated/iterm2/Iterm2Messages.js"
import { fail, type TermPilotError } from "../../../services/Errors.js"
import type { BoundedText, CommandOutput, ReadBounds } from "../../../services/Terminal.js"
import {
  callFor,
  getBuffer,
  getLines,
  getPrompt,
  orUnavailable,
  promptOf,
  promptRequest,
  replyField,
  unavailable
} from "./Calls.js"
import type { Iterm2Connection } from "./ConnectionService.js"

type Conn = Iterm2Connection["Service"]

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

export const screenRows = (conn: Conn, sessionId: string): Effect.Effect<ScreenRows, TermPilotError> =>
  getBuffer(conn, sessionId, { screen_contents_only: true }).pipe(
    Effect.map((screen) => {
      const top = screen.windowed_coord_range?.coord_range?.start?.y ?? 0
      return {
        rows: screen.contents ?? [],
        top,
        cursor: { x: screen.cursor?.x ?? 0, y: screen.cursor?.y ?? top }
      }
    })
  )

/** The digest of one row's exact text and how it ends (a row that went on wrapping has changed). */
export const digestOfRow = (row: LineContents): string =>
  rowDigest(`${row.continuation ?? "CONTINUATION_HARD_EOL"}\n${row.text ?? ""}`)

/** The digest of the cursor's own row, null when the cursor is not on a row of the screen. */
export const cursorRowDigest = (screen: ScreenRows): string | null => {
  const row = screen.rows[screen.cursor.y - screen.top]
  return row === undefined ? null : digestOfRow(row)
}

/** Text plus the absolute cursor row of the same moment, and the digest of that row. */
export interface ScreenText extends BoundedText {
  readonly cursorRow: number
  readonly cursorRowDigest: string | null
}

/** The screen and the scrollback above it: at most `maxLines` rows, newest kept. */
export const readScreen = (
  conn: Conn,
  sessionId: string,
  bounds: ReadBounds
): Effect.Effect<ScreenText, TermPilotError> =>
  Effect.gen(function* () {
    const screen = yield* screenRows(conn, sessionId)
    const { rows, top, cursor } = screen
    const cursorRow = cursor.y - top
    const last = lastWrittenFrom(rows, Math.min(rows.length - 1, Math.max(cursorRow, -1)))
    const onScreen = rows.slice(Math.max(0, last + 1 - bounds.maxLines), last + 1)
    const need = bounds.maxLines - onScreen.length
    let above: ReadonlyArray<LineContents> = []
    let moreAbove = onScreen.length < last + 1
    if (need > 0 && top > 0) {
      const first = Math.max(0, top - need)
      above = (yield* getLines(conn, sessionId, first, top)).contents ?? []
      moreAbove = first > 0 && above.length === top - first
    }
    const bounded = boundTail(joinRows([...above, ...onScreen]), bounds)
    return {
      ...bounded,
      truncated: bounded.truncated || moreAbove,
      cursorRow: cursor.y,
      cursorRowDigest: cursorRowDigest(screen)
    }
  }).pipe(conn.transaction, Effect.mapError(orUnavailable))

const before = (a: Coord, b: Coord) => (a.y ?? 0) < (b.y ?? 0) || (a.y === b.y && (a.x ?? 0) < (b.x ?? 0))

/**
 * The prompt typed at `promptId` and the ids of the prompts from it on, asked for together (one
 * round trip). The list's own failure counts only where the prompt is there to be clamped.
 */
const promptAndLater = (
  conn: Conn,
  sessionId: string,
  promptId: string
): Effect.Effect<
  { readonly prompt: GetPromptResponse | undefined; readonly later: ReadonlyArray<string> },
  TermPilotError
> =>
  Effect.gen(function* () {
    const [prompt, list] = yield* Effect.mapError(
      conn.callAll([
        promptRequest(sessionId, promptId),
        { list_prompts_request: { session: sessionId, first_unique_id: promptId } }
      ]),
      unavailable
    )
    const found = yield* Effect.flatMap(replyField(prompt, "get_prompt_response"), promptOf(sessionId))
    if (found === undefined) return { prompt: found, later: [] }
    const ids = yield* replyField(list, "list_prompts_response")
    return { prompt: found, later: ids.unique_prompt_id ?? [] }
  })

/** Where the output of `promptId` ends: iTerm2 reports the cursor, so clamp to the next prompt. */
const outputEnd = (
  conn: Conn,
  sessionId: string,
  promptId: string,
  cursor: Coord,
  later: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const next = later[later.indexOf(promptId) + 1]
    if (later.indexOf(promptId) < 0 || next === undefined) return cursor
    const prompt = yield* getPrompt(conn, sessionId, next)
    const start = prompt?.prompt_range?.start ?? prompt?.command_range?.start
    return start !== undefined && before(start, cursor) ? start : cursor
  })

/** The last row holding output that ends at `end` (exclusive: at column 0, the row before). */
const lastRowBefore = (end: Coord) => ((end.x ?? 0) > 0 ? (end.y ?? 0) : (end.y ?? 0) - 1)

/**
 * Rows of output the command typed at `promptId` has written so far, from positions alone (its
 * output range, clamped to the next prompt); null when iTerm2 reports no range. No transaction:
 * a count taken while output moves on is as good as one taken a moment earlier.
 */
export const outputRowCount = (
  conn: Conn,
  sessionId: string,
  promptId: string
): Effect.Effect<number | null, TermPilotError> =>
  Effect.gen(function* () {
    const { prompt, later } = yield* promptAndLater(conn, sessionId, promptId)
    const start = prompt?.output_range?.start
    const cursor = prompt?.output_range?.end
    if (start?.y === undefined || cursor?.y === undefined) return null
    const end = yield* outputEnd(conn, sessionId, promptId, cursor, later)
    return Math.max(0, lastRowBefore(end) - start.y + 1)
  })

const unavailableOutput = (detail: string) =>
  fail("output_unavailable", `The command's output is unavailable: ${detail}.`)

/** The cursor, absolute (from a one-line buffer read). */
const cursorOf = (conn: Conn, sessionId: string) =>
  getBuffer(conn, sessionId, { trailing_lines: 1 }).pipe(Effect.map((reply) => reply.cursor))

/**
 * Where the output of a prompt that scrolled out of the history ended: at the oldest prompt still
 * kept (the one after ours, since lines leave oldest first), or at the cursor if none is drawn yet.
 */
const endAfterLostPrompt = (conn: Conn, sessionId: string) =>
  Effect.gen(function* () {
    const list = yield* callFor(
      conn,
      { list_prompts_request: { session: sessionId } },
      "list_prompts_response"
    )
    const oldest = list.unique_prompt_id?.[0]
    if (oldest === undefined) return yield* cursorOf(conn, sessionId)
    const prompt = yield* getPrompt(conn, sessionId, oldest)
    return prompt?.prompt_range?.start ?? prompt?.command_range?.start
  })

interface OutputSpan {
  readonly start: Coord
  readonly end: Coord
  /** False when the start scrolled out of the history: whatever is still kept is a tail. */
  readonly complete: boolean
}

const outputSpan = (conn: Conn, sessionId: string, promptId: string) =>
  Effect.gen(function* () {
    const { prompt, later } = yield* promptAndLater(conn, sessionId, promptId)
    if (prompt === undefined) {
      const end = yield* endAfterLostPrompt(conn, sessionId)
      if (end?.y === undefined) return yield* unavailableOutput("it scrolled out of the terminal's history")
      return { start: { x: 0, y: 0 }, end, complete: false } satisfies OutputSpan
    }
    const start = prompt.output_range?.start
    const cursor = prompt.output_range?.end
    if (start?.y === undefined || cursor?.y === undefined) {
      return yield* unavailableOutput("iTerm2 reported no output range")
    }
    const end = yield* outputEnd(conn, sessionId, promptId, cursor, later)
    return { start, end, complete: true } satisfies OutputSpan
  })

/**
 * The bounded tail of the output range of the command typed at `promptId`. When that prompt (or
 * the start of its output) has scrolled out of the history, the kept tail is returned, truncated.
 */
export const readCommandOutput = (
  conn: Conn,
  sessionId: string,
  promptId: string,
  bounds: ReadBounds
): Effect.Effect<CommandOutput, TermPilotError> =>
  Effect.gen(function* () {
    const { start, end, complete } = yield* outputSpan(conn, sessionId, promptId)
    const startY = start.y ?? 0
    const endX = end.x ?? 0
    const lastRow = lastRowBefore(end)
    if (lastRow < startY)
      return { text: "", lineCount: 0, truncated: !complete, totalLines: complete ? 0 : null }
    const first = Math.max(startY, lastRow - bounds.maxLines + 1)
    const rows = [...((yield* getLines(conn, sessionId, first, lastRow + 1)).contents ?? [])]
    const cut = (row: LineContents | undefined, from: number, to?: number): LineContents | undefined =>
      row === undefined ? row : { ...row, text: [...(row.text ?? "")].slice(from, to).join("") }
    const whole = rows.length === lastRow - first + 1
    if (endX > 0 && rows.length > 0) rows[rows.length - 1] = cut(rows[rows.length - 1], 0, endX) ?? {}
    if (whole && first === startY && (start.x ?? 0) > 0) rows[0] = cut(rows[0], start.x ?? 0) ?? {}
    const lines = joinRows(rows)
    const bounded = boundTail(lines, bounds)
    // Rows above the ones fetched count one line each (a soft-wrapped line there counts per row).
    const totalLines = complete && whole ? first - startY + lines.length : null
    return { ...bounded, truncated: bounded.truncated || first > startY || !whole || !complete, totalLines }
  }).pipe(conn.transaction, Effect.mapError(orUnavailable))
