/**
 * Commands — `Terminal.listCommands` and `Terminal.commandText` over tmux: the commands a pane's
 * counted marks logged since TermPilot watched it (src/domain/tmux/CommandHistory.ts), after the
 * last one its shell's record proves from before (EarlierPrompt.ts, without output), and a
 * command's output read back from tmux's own grid by the rows the log kept. A read is one write:
 * the grid state, then the captures; the state's reply is checked against the pane's row model
 * right where it arrives in the stream, so the captured rows are the ones the model placed (the
 * coordinates were chosen from the model's state before the write: if the pane scrolled, or the
 * reply could not be compared (PaneEntry.syncRows), the read is tried again). Nothing is sent to
 * the pane.
 */
import { Effect } from "effect"
import { boundHead, boundTail } from "../../../domain/TextBounds.js"
import type { CommandHistory, OutputPlace } from "../../../domain/tmux/CommandHistory.js"
import type { LogEntry } from "../../../domain/tmux/CommandLog.js"
import { cellWidth } from "../../../domain/tmux/PromptRecord.js"
import { fail, type TermPilotError } from "../../../services/Errors.js"
import type { CommandRecord, CommandText, OutputFrom, ReadBounds } from "../../../services/Terminal.js"
import { mayProveEarlier, proveEarlierPrompt } from "./EarlierPrompt.js"
import type { PaneEntry, RowsVerdict } from "./PaneEntry.js"
import { flagsOfPane } from "./Readiness.js"
import type { TmuxRegistry } from "./Registry.js"

/** Writes one read takes before it gives up on a pane that keeps scrolling. */
const READ_ATTEMPTS = 4

const record = (entry: LogEntry, history: CommandHistory): CommandRecord => {
  const place = history.place(entry)
  return {
    key: entry.id,
    command: entry.command,
    exitCode: entry.exitCode,
    cwd: entry.cwd,
    startedAt: entry.startedAt,
    finishedAt: entry.finishedAt,
    status: entry.status,
    promptId: entry.promptId,
    outputLineCount: typeof place === "string" ? null : place.rows,
    outputUnavailable: typeof place === "string" ? place : null
  }
}

/** The text of `row` from cell `from` on, or up to cell `to` (cells as tmux counts them). */
const cells = (row: string, from: number, to: number | null): string => {
  let width = 0
  let start = from === 0 ? 0 : -1
  let end = row.length
  let index = 0
  for (const ch of row) {
    if (start < 0 && width >= from) start = index
    if (to !== null && width >= to) {
      end = index
      break
    }
    width += cellWidth(ch)
    index += ch.length
  }
  return start < 0 ? "" : row.slice(start, end)
}

/** The rows (offsets from the output's start) a read covers. */
const rowsToRead = (place: OutputPlace, bounds: ReadBounds, from: OutputFrom) => {
  const last = place.rows - 1
  const count = Math.max(0, Math.floor(bounds.maxLines))
  if (from === "tail") return { first: Math.max(place.lostRows, last - count + 1), last }
  const first = from === "head" ? place.lostRows : Math.max(place.lostRows, Math.floor(from))
  return { first, last: Math.min(last, first + count - 1) }
}

/** The newest `limit` entries logged after `afterKey` (all kept when it is not). */
const listed = (entry: PaneEntry, limit: number, afterKey: string | null): ReadonlyArray<CommandRecord> => {
  const history = entry.stream.history
  const all = history.entries
  const after = afterKey === null ? -1 : all.findIndex((e) => e.id === afterKey)
  return all
    .slice(after + 1)
    .slice(-Math.max(0, limit))
    .map((e) => record(e, history))
}

const unavailable = (sessionId: string, why: string): TermPilotError =>
  fail(
    "output_unavailable",
    `The output of that command in session '${sessionId}' cannot be read exactly: ${why}.`
  )

export const makeTmuxCommands = (registry: TmuxRegistry) => {
  const paneOf = (sessionId: string) =>
    Effect.map(registry.resolve(sessionId), ({ server, pane }) => ({ pane, entry: server.panes.get(pane) }))

  /**
   * The grid state now, given to the pane's row model (settles what a loss left pending); failures
   * change nothing, nor does a reply the pane wrote past while it was on its way (PaneEntry.syncRows).
   */
  const syncNow = (entry: PaneEntry) => {
    const ask = entry.gridAsk()
    if (ask === null) return Effect.void
    return Effect.ignore(
      ask.client.commands([ask.line], false, (_i, reply) => {
        if (reply.ok) entry.syncRows(ask, reply.lines[0] ?? "")
      })
    )
  }

  const listCommands = (sessionId: string, limit: number, afterKey: string | null) =>
    Effect.gen(function* () {
      const resolved = yield* registry.resolve(sessionId)
      const { server, pane } = resolved
      // As the listing and readiness do: a shell seen by no mark yet may prove its last command.
      if (mayProveEarlier(server.panes.get(pane)))
        yield* proveEarlierPrompt(server, pane, yield* flagsOfPane(resolved, sessionId))
      const entry = server.panes.get(pane)
      if (entry === undefined) return []
      yield* syncNow(entry)
      return listed(entry, limit, afterKey)
    })

  /** One read: the grid state, then the rows; null when the pane scrolled between plan and write. */
  const readOnce = (pane: number, entry: PaneEntry, logged: LogEntry, bounds: ReadBounds, from: OutputFrom) =>
    Effect.gen(function* () {
      const history = entry.stream.history
      const ask = entry.gridAsk()
      const place = history.place(logged)
      if (typeof place === "string") return place
      if (ask === null) return "TermPilot is not connected to the pane's tmux server now"
      const planned = history.grid
      const span = rowsToRead(place, bounds, from)
      const rowOf = (offset: number) => history.captureRow(place.start.line + offset)
      // The last row of a command that left the cursor on it holds only part of its output.
      const partialEnd = place.end.col > 0 && span.last === place.rows - 1 && span.first <= span.last
      const full = { first: span.first, last: partialEnd ? span.last - 1 : span.last }
      const lines = [ask.line]
      if (full.first <= full.last)
        lines.push(`capture-pane -p -J -t %${pane} -S ${rowOf(full.first)} -E ${rowOf(full.last)}`)
      if (partialEnd) lines.push(`capture-pane -p -t %${pane} -S ${rowOf(span.last)} -E ${rowOf(span.last)}`)
      let verdict: RowsVerdict = null
      const replies = yield* ask.client.commands(lines, false, (i, reply) => {
        if (i === 0) verdict = reply.ok ? entry.syncRows(ask, reply.lines[0] ?? "") : null
      })
      const after = history.place(logged)
      if (typeof after === "string") return after
      const moved = planned === null || history.grid?.historySize !== planned.historySize
      if (verdict !== "matched" || moved || after.start.line !== place.start.line) return null
      const refused = replies.find((r) => !r.ok)
      if (refused !== undefined)
        return yield* fail("tmux_unavailable", `tmux refused 'capture-pane': ${refused.lines.join(" ")}`)
      const text = [...(full.first <= full.last ? (replies[1]?.lines ?? []) : [])]
      if (span.first === 0 && place.start.col > 0 && text.length > 0)
        text[0] = cells(text[0]!, place.start.col, null)
      if (partialEnd) {
        const row = replies[replies.length - 1]?.lines[0] ?? ""
        text.push(span.last === 0 ? cells(row, place.start.col, place.end.col) : cells(row, 0, place.end.col))
      }
      return { place, span, text }
    })

  const commandText = (sessionId: string, key: string, bounds: ReadBounds, from: OutputFrom) =>
    Effect.gen(function* () {
      const { pane, entry } = yield* paneOf(sessionId)
      const logged = entry?.stream.history.entry(key)
      if (entry === undefined || logged === undefined)
        return yield* fail("invalid_request", `No command '${key}' is known in session '${sessionId}'.`)
      for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
        const read = yield* readOnce(pane, entry, logged, bounds, from)
        if (read === null) continue
        if (typeof read === "string") return yield* unavailable(sessionId, read)
        const { place, span, text } = read
        const bounded = from === "tail" ? boundTail(text, bounds) : boundHead(text, bounds)
        const leftOut = span.first > place.lostRows || span.last < place.rows - 1
        return {
          ...bounded,
          truncated: bounded.truncated || leftOut,
          totalLines: place.rows,
          firstLine: Math.min(span.first, place.rows),
          lostLines: place.lostRows,
          exitCode: logged.exitCode,
          status: logged.status
        } satisfies CommandText
      }
      return yield* unavailable(sessionId, "the pane kept scrolling while TermPilot read it; try again")
    })

  return { listCommands, commandText }
}
