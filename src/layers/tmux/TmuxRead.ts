/**
 * TmuxRead — `Terminal.read` over tmux: bounded `capture-pane` of the screen and history tail, the
 * cursor position every read returns, and `since` reads (src/domain/tmux/HistoryAnchor.ts). Each
 * capture goes in one write after the pane's flag row: tmux runs those commands back to back, so
 * the row gives the geometry the captures saw. Coordinates are chosen from the row before; a since
 * read whose geometry moved in between is asked again (bounded), and reports `cursorLost` with
 * the kept tail when its position cannot be verified.
 */
import { Effect } from "effect"
import { boundTail } from "../../domain/TextBounds.js"
import {
  anchorOf,
  anchorSpan,
  bottomOf,
  cursorRow,
  geometryOf,
  type PaneGeometry,
  type RowSpan,
  rowZeroHolds,
  sameGeometry,
  textSpan,
  trimmedRows
} from "../../domain/tmux/HistoryAnchor.js"
import { FLAG_FIELDS, type FlagRow, parseFields } from "../../domain/tmux/PaneFormat.js"
import { fail, sessionNotFound, type TermPilotError } from "../../services/Errors.js"
import type { CursorPosition, ReadBounds, Snapshot } from "../../services/Terminal.js"
import type { ControlClient } from "./ControlClient.js"
import { flagsOfPane, readinessOf } from "./PaneAccess.js"
import type { TmuxRegistry } from "./TmuxRegistry.js"
import { flagsLine } from "./TmuxServer.js"

/** Writes one since read may take before it gives up verifying its position. */
const SINCE_BATCHES = 6
/** Writes a plain read may take to get the cursor's anchor rows (a cursor moving up escapes them). */
const PLAIN_BATCHES = 3

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

/** The cursor position of `now` from a cursor window asked under the row before; undefined if it escaped. */
const cursorFrom = (
  asked: RowSpan,
  now: PaneGeometry,
  rows: ReadonlyArray<string>
): CursorPosition | undefined => {
  const row = cursorRow(now)
  const span = anchorSpan(now, row)
  if (span === null) return { row, anchor: null }
  // tmux starts a capture at the oldest kept row when asked for more.
  const first = Math.max(asked.start, -now.historySize)
  const from = span.start - first
  const to = span.end - first
  if (from < 0 || to >= rows.length) return undefined
  return { row, anchor: anchorOf(rows.slice(from, to + 1)) }
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
      let geometry = geometryOf(yield* flagsOfPane(resolved, sessionId))
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
      const plain = (cursorLost: boolean) =>
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
                cursor ?? { row: cursorRow(b.geometry), anchor: null },
                b.captures[1] ?? null,
                leftOut,
                cursorLost
              )
            }
            geometry = b.geometry
          }
        })

      if (since === undefined) return yield* plain(false)

      /** Whether a since read's rows match its anchor (row 0: no anchor, only while no trim can have happened). */
      const holds = (g: PaneGeometry, rows: ReadonlyArray<string> | null) =>
        rows === null
          ? since.row === 0 && since.anchor === null && rowZeroHolds(g)
          : anchorOf(rows) === since.anchor

      let candidate = since.row
      for (let used = 0; used < SINCE_BATCHES; ) {
        const g = geometry
        const probe = since.anchor === null ? null : anchorSpan(g, candidate)
        if (since.anchor === null || probe !== null) {
          const window = cursorWindow(g)
          const text = textSpan(g, candidate, maxLines)
          const b = yield* batch(client, pane, sessionId, [
            captureLine(pane, window, false),
            ...(maxLines > 0 ? [captureLine(pane, text.span, true)] : []),
            ...(probe === null ? [] : [captureLine(pane, probe, false)])
          ])
          used++
          geometry = b.geometry
          if (!sameGeometry(g, b.geometry)) continue
          const probed = probe === null ? null : (b.captures.at(-1) ?? [])
          if (holds(g, probed)) {
            const cursor = cursorFrom(window, g, b.captures[0] ?? []) ?? { row: cursorRow(g), anchor: null }
            return snapshot(b, cursor, maxLines > 0 ? (b.captures[1] ?? []) : null, text.leftOut, false)
          }
        }
        if (since.anchor === null) break
        // Not at its place: look where 1..10 history trims would have moved it, in one write.
        const rows = trimmedRows(geometry, since.row).filter((r) => anchorSpan(geometry, r) !== null)
        if (rows.length === 0) break
        const asked = geometry
        const b = yield* batch(
          client,
          pane,
          sessionId,
          rows.map((r) => captureLine(pane, anchorSpan(asked, r)!, false))
        )
        used++
        geometry = b.geometry
        if (!sameGeometry(asked, b.geometry)) continue
        const found = rows.findIndex((_, i) => anchorOf(b.captures[i] ?? []) === since.anchor)
        if (found < 0) break
        candidate = rows[found]!
      }
      return yield* plain(true)
    }).pipe(Effect.withSpan("TmuxTerminal.read"))
}
