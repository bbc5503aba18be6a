/**
 * Bounded text from iTerm2's buffer: the screen plus scrollback tail of a session, and the tail of
 * one command's output range. Each read fetches only the rows it may return (plus, for the screen,
 * the blank rows below the last written one); a screen read inside one transaction so its
 * coordinates stay valid, a command's output without one (its coordinates are absolute).
 * Which rows those are is the pure rules' (src/domain/iterm2/ScreenRows.ts, OutputRange.ts).
 */
import { Effect } from "effect"
import {
  clampToPrompt,
  clampToStart,
  lostPromptSpan,
  nextPromptId,
  type OutputSpan,
  outputLines,
  outputWindow,
  plausibleNextStart,
  promptStart,
  reportedRange,
  rowCount
} from "../../../domain/iterm2/OutputRange.js"
import {
  cursorRowDigest,
  joinRows,
  olderLeftOut,
  type ScreenRows,
  screenOf,
  screenTail
} from "../../../domain/iterm2/ScreenRows.js"
import { boundTail } from "../../../domain/TextBounds.js"
import type { Coord, GetPromptResponse } from "../../../generated/iterm2/Iterm2Messages.js"
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

/** The screen's rows, the absolute row of its top one, and the cursor (one GetBuffer). */
export const screenRows = (conn: Conn, sessionId: string): Effect.Effect<ScreenRows, TermPilotError> =>
  getBuffer(conn, sessionId, { screen_contents_only: true }).pipe(Effect.map(screenOf))

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
    const { onScreen, above, cut } = screenTail(screen, bounds.maxLines)
    const fetched =
      above === null ? [] : ((yield* getLines(conn, sessionId, above.first, above.end)).contents ?? [])
    const bounded = boundTail(joinRows([...fetched, ...onScreen]), bounds)
    return {
      ...bounded,
      truncated: bounded.truncated || (above === null ? cut : olderLeftOut(above, fetched)),
      cursorRow: screen.cursor.y,
      cursorRowDigest: cursorRowDigest(screen)
    }
  }).pipe(conn.transaction, Effect.mapError(orUnavailable))

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

/** Where prompts start, as their notifications reported them (PromptSessions.ts); undefined: ask. */
export type KnownStart = (sessionId: string, promptId: string) => Coord | undefined

/**
 * Where the output of `promptId` ends: iTerm2 reports the cursor, so clamp to the next prompt,
 * whose start its notification gave (no request), else asked for.
 */
const outputEnd = (
  conn: Conn,
  known: KnownStart,
  sessionId: string,
  promptId: string,
  range: { readonly start: Coord; readonly cursor: Coord },
  later: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const next = nextPromptId(later, promptId)
    if (next === undefined) return range.cursor
    const start = known(sessionId, next)
    if (plausibleNextStart(start, range.start)) return clampToStart(range.cursor, start)
    return clampToPrompt(range.cursor, yield* getPrompt(conn, sessionId, next))
  })

/**
 * Rows of output the command typed at `promptId` has written so far, from positions alone (its
 * output range, clamped to the next prompt); null when iTerm2 reports no range. No transaction:
 * a count taken while output moves on is as good as one taken a moment earlier.
 */
export const outputRowCount = (
  conn: Conn,
  known: KnownStart,
  sessionId: string,
  promptId: string
): Effect.Effect<number | null, TermPilotError> =>
  Effect.gen(function* () {
    const { prompt, later } = yield* promptAndLater(conn, sessionId, promptId)
    const range = prompt === undefined ? null : reportedRange(prompt)
    if (range === null) return null
    return rowCount(range.start, yield* outputEnd(conn, known, sessionId, promptId, range, later))
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
    return promptStart(yield* getPrompt(conn, sessionId, oldest))
  })

const outputSpan = (
  conn: Conn,
  known: KnownStart,
  sessionId: string,
  promptId: string
): Effect.Effect<OutputSpan, TermPilotError> =>
  Effect.gen(function* () {
    const { prompt, later } = yield* promptAndLater(conn, sessionId, promptId)
    if (prompt === undefined) {
      const end = yield* endAfterLostPrompt(conn, sessionId)
      if (end?.y === undefined) return yield* unavailableOutput("it scrolled out of the terminal's history")
      return lostPromptSpan(end)
    }
    const range = reportedRange(prompt)
    if (range === null) return yield* unavailableOutput("iTerm2 reported no output range")
    const end = yield* outputEnd(conn, known, sessionId, promptId, range, later)
    return { start: range.start, end, complete: true }
  })

/**
 * The bounded tail of the output range of the command typed at `promptId`. When that prompt (or
 * the start of its output) has scrolled out of the history, the kept tail is returned, truncated.
 * No transaction: the range's coordinates are absolute, so they stay valid while the history
 * grows; rows it trims in between come back missing, which `outputLines` reports as a cut.
 */
export const readCommandOutput = (
  conn: Conn,
  known: KnownStart,
  sessionId: string,
  promptId: string,
  bounds: ReadBounds
): Effect.Effect<CommandOutput, TermPilotError> =>
  Effect.gen(function* () {
    const span = yield* outputSpan(conn, known, sessionId, promptId)
    const window = outputWindow(span, bounds.maxLines)
    if (window === null)
      return { text: "", lineCount: 0, truncated: !span.complete, totalLines: span.complete ? 0 : null }
    const rows = (yield* getLines(conn, sessionId, window.first, window.end)).contents ?? []
    const { lines, cut, totalLines } = outputLines(span, window, rows)
    const bounded = boundTail(lines, bounds)
    return { ...bounded, truncated: bounded.truncated || cut, totalLines }
  })
