/**
 * Read — `Terminal.read` over tmux: bounded `capture-pane` of the screen and history tail
 * (wrapped rows joined), the cursor position every read returns, and `since` reads
 * (src/domain/tmux/HistoryAnchor.ts). Each write is the pane's flag row then the captures: tmux
 * runs them back to back, so the row is the geometry they saw, though their coordinates were
 * chosen from the write before. A since read probes its anchor at its place and where 1..10
 * trims would have moved it, with slack rows above for what the pane scrolls meanwhile, and
 * returns the exact rows (not joined) from the row found (that row itself only when its text changed
 * since the cursor's read: nothing new is nothing); not found, `cursorLost` and the kept tail.
 */
import { Effect } from "effect"
import { rowDigest } from "../../../domain/ReadCursor.js"
import { boundTail } from "../../../domain/TextBounds.js"
import {
  anchorOf,
  anchorSpan,
  bottomOf,
  cursorRow,
  findInProbe,
  geometryOf,
  type PaneGeometry,
  probeSpan,
  type RowSpan,
  rowZeroHolds,
  sameGeometry,
  textSpan,
  trimmedRows,
  trimStep
} from "../../../domain/tmux/HistoryAnchor.js"
import { FLAG_FIELDS, type FlagRow, flagsLine, parseFields } from "../../../domain/tmux/PaneFormat.js"
import { fail, sessionNotFound, type TermPilotError } from "../../../services/Errors.js"
import type { CursorPosition, ReadBounds, Snapshot } from "../../../services/Terminal.js"
import type { ControlClient } from "./Connection.js"
import { proveEarlierPrompt } from "./EarlierPrompt.js"
import { flagsOfPane, readinessOf } from "./Readiness.js"
import type { TmuxRegistry } from "./Registry.js"

/** Writes one since read may take before it gives up verifying its position. */
const SINCE_BATCHES = 6
/** Writes a plain read may take to get the cursor's anchor rows (a cursor moving up escapes them). */
const PLAIN_BATCHES = 3
/**
 * Rows above an anchor a probe also takes, for the rows the pane may scroll before tmux runs it:
 * at least MIN_SLACK, twice what it scrolled during the last write, at most MAX_SLACK.
 */
const MIN_SLACK = 16
const MAX_SLACK = 512

/** The slack after a write planned under `asked` ran under `now`. */
const slackAfter = (asked: PaneGeometry, now: PaneGeometry): number => {
  const grown = now.historySize - asked.historySize
  const scrolled = grown >= 0 ? grown : grown + trimStep(now)
  return Math.min(MAX_SLACK, Math.max(MIN_SLACK, 2 * scrolled))
}

/** A history at most one step below its limit may have been trimmed (without clear-history it never shrinks below). */
const mayHaveTrimmed = (g: PaneGeometry): boolean => g.historySize >= g.historyLimit - trimStep(g)

/** Blank trailing rows (below the cursor) are not part of what a read returns. */
const dropTrailingBlank = (lines: ReadonlyArray<string>): ReadonlyArray<string> => {
  let end = lines.length
  while (end > 0 && (lines[end - 1] ?? "").trim() === "") end--
  return lines.slice(0, end)
}

const captureLine = (pane: number, span: RowSpan, joined: boolean) =>
  `capture-pane -p${joined ? " -J" : ""} -t %${pane} -S ${span.start} -E ${span.end}`

/** The exact rows from the anchor rows of the cursor to the bottom (covers a cursor that moved down). */
const cursorWindow = (g: PaneGeometry): RowSpan => ({
  start: Math.max(g.cursorY - 3, -g.historySize),
  end: bottomOf(g)
})

/**
 * The cursor position of `now` from a cursor window asked under the row before, with the digest of
 * the cursor's own row; undefined if the anchor rows escaped the window.
 */
const cursorFrom = (
  asked: RowSpan,
  now: PaneGeometry,
  rows: ReadonlyArray<string>
): CursorPosition | undefined => {
  const row = cursorRow(now)
  // tmux starts a capture at the oldest kept row when asked for more.
  const first = Math.max(asked.start, -now.historySize)
  const own = now.cursorY - first >= 0 ? rows[now.cursorY - first] : undefined
  const digest = own === undefined ? null : rowDigest(own)
  const span = anchorSpan(now, row)
  if (span === null) return { row, anchor: null, rowDigest: digest }
  const from = span.start - first
  const to = span.end - first
  if (from < 0 || to >= rows.length) return undefined
  return { row, anchor: anchorOf(rows.slice(from, to + 1)), rowDigest: digest }
}

/** The cursor's position when its anchor rows escaped the window: its row alone. */
const unanchored = (g: PaneGeometry): CursorPosition => ({ row: cursorRow(g), anchor: null, rowDigest: null })

/** Rows from the since position on: its own row only when its text is not the one the cursor saw. */
const fromPosition = (rows: ReadonlyArray<string>, skip: number, since: CursorPosition) => {
  const own = rows[skip]
  const unchanged = own !== undefined && since.rowDigest !== null && rowDigest(own) === since.rowDigest
  return rows.slice(unchanged ? skip + 1 : skip)
}

interface Batch {
  readonly row: FlagRow
  readonly geometry: PaneGeometry
  readonly captures: ReadonlyArray<ReadonlyArray<string>>
}

export const makeTmuxRead = (registry: TmuxRegistry) => {
  /** The flag row then `lines`, in one write. */
  const batch = (client: ControlClient, pane: number, sessionId: string, lines: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const [flags, ...replies] = yield* client.commands([flagsLine(pane), ...lines], true)
      const row =
        flags?.lines.map((l) => parseFields(FLAG_FIELDS, l)).find((r) => r?.pane_id === `%${pane}`) ?? null
      if (row === null) return yield* sessionNotFound(sessionId)
      const refused = replies.find((r) => !r.ok)
      if (refused !== undefined)
        return yield* fail("tmux_unavailable", `tmux refused 'capture-pane': ${refused.lines.join(" ")}`)
      return { row, geometry: geometryOf(row), captures: replies.map((r) => r.lines) } satisfies Batch
    })

  return (
    sessionId: string,
    bounds: ReadBounds,
    since?: CursorPosition
  ): Effect.Effect<Snapshot, TermPilotError> =>
    Effect.gen(function* () {
      const resolved = yield* registry.resolve(sessionId)
      const { server, pane } = resolved
      const first = yield* flagsOfPane(resolved, sessionId)
      yield* proveEarlierPrompt(server, pane, first)
      let geometry = geometryOf(first)
      const client = yield* server.clientFor(pane)
      const maxLines = Math.max(0, Math.floor(bounds.maxLines))

      const snapshot = (
        b: Batch,
        cursor: CursorPosition,
        lines: ReadonlyArray<string> | null,
        leftOut: boolean,
        cursorLost: boolean
      ): Snapshot => {
        const readiness = readinessOf(server, pane, b.row)
        if (lines === null) return { text: "", lineCount: 0, truncated: true, readiness, cursor, cursorLost }
        const text = boundTail(dropTrailingBlank(lines), bounds)
        return { ...text, truncated: text.truncated || leftOut, readiness, cursor, cursorLost }
      }

      /** The newest rows of everything kept, as a read without `since` returns them. */
      const plain = (lost: (g: PaneGeometry) => boolean) =>
        Effect.gen(function* () {
          for (let attempt = 1; ; attempt++) {
            const window = cursorWindow(geometry)
            const text = textSpan(geometry, 0, maxLines).span
            const b = yield* batch(client, pane, sessionId, [
              captureLine(pane, window, false),
              ...(maxLines > 0 ? [captureLine(pane, text, true)] : [])
            ])
            const cursor = cursorFrom(window, b.geometry, b.captures[0] ?? [])
            if (cursor !== undefined || attempt >= PLAIN_BATCHES) {
              // Rows above the first one fetched were left out (tmux clamps at the oldest kept row).
              const leftOut = text.start > -b.geometry.historySize
              return snapshot(
                b,
                cursor ?? unanchored(b.geometry),
                b.captures[1] ?? null,
                leftOut,
                lost(b.geometry)
              )
            }
            geometry = b.geometry
          }
        })

      /**
       * A since read's snapshot: the exact rows fetched (capture 1) from the position's, row `skip` of
       * them (negative: above the first one fetched, so the bound left rows out).
       */
      const fromRow = (b: Batch, window: RowSpan, skip: number, position: CursorPosition) => {
        const rows = b.captures[1] ?? []
        const cursor = cursorFrom(window, b.geometry, b.captures[0] ?? []) ?? unanchored(b.geometry)
        return snapshot(b, cursor, skip >= 0 ? fromPosition(rows, skip, position) : rows, skip < 0, false)
      }

      /** The exact rows from absolute row 0 (the oldest kept) on, while no trim can have dropped it. */
      const fromTop = (position: CursorPosition) =>
        Effect.gen(function* () {
          const window = cursorWindow(geometry)
          const text = textSpan(geometry, 0, maxLines).span
          const b = yield* batch(client, pane, sessionId, [
            captureLine(pane, window, false),
            captureLine(pane, text, false)
          ])
          geometry = b.geometry
          if (!rowZeroHolds(b.geometry)) return yield* plain(() => true)
          // Row 0 is the oldest kept row; rows above the first one fetched were left out.
          return fromRow(b, window, Math.min(0, -b.geometry.historySize - text.start), position)
        })

      if (since === undefined) return yield* plain(() => false)
      // Row 0 has no anchor rows: it names everything kept, until a trim may have dropped it.
      const anchor = since.anchor
      if (anchor === null && since.row === 0 && rowZeroHolds(geometry)) return yield* fromTop(since)
      if (anchor === null) return yield* plain(() => true)

      let slack = MIN_SLACK
      for (let used = 0; used < SINCE_BATCHES; used++) {
        const g = geometry
        const window = cursorWindow(g)
        // Its expected place, and where 1..10 trims of a full history would have moved it.
        const places = [since.row, ...(mayHaveTrimmed(g) ? trimmedRows(g, since.row) : [])].flatMap((row) => {
          const span = probeSpan(g, row, slack)
          return span === null ? [] : [{ row, span }]
        })
        if (places.length === 0) break
        // Exact rows from the highest place it may have scrolled to, bounded to the newest maxLines.
        const highest = Math.min(...places.map((p) => p.row)) - g.historySize - slack
        const text = { start: Math.max(highest, g.cursorY - maxLines + 1, -g.historySize), end: bottomOf(g) }
        if (text.start > text.end) text.start = text.end
        const b = yield* batch(client, pane, sessionId, [
          captureLine(pane, window, false),
          captureLine(pane, text, false),
          ...places.map((p) => captureLine(pane, p.span, false))
        ])
        geometry = b.geometry
        slack = slackAfter(g, b.geometry)
        const found = places
          .map((p, i) => findInProbe(g, b.geometry, p.row, p.span, b.captures[2 + i] ?? [], anchor))
          .find((at) => at !== null)
        if (found === undefined || found === null) {
          if (sameGeometry(g, b.geometry)) break
          continue
        }
        // The rows from the one it is on now; above the first row fetched, the bound left rows out.
        const first = Math.max(text.start, -b.geometry.historySize)
        return fromRow(b, window, found - b.geometry.historySize - first, since)
      }
      return yield* plain(() => true)
    }).pipe(Effect.withSpan("TmuxTerminal.read"))
}
