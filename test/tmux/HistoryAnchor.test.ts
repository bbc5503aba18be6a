/**
 * Read positions in a tmux grid, pure, against a model of one: rows appended at the bottom scroll
 * the screen (capture coordinates count from its top), a full history drops a tenth of its limit
 * at a time. A probe planned before the pane scrolled (and trimmed) still finds the row its anchor
 * names, as the grid numbers it now; a row whose anchor rows are gone is not found.
 */
import { describe, expect, it } from "vitest"
import {
  anchorOf,
  findInProbe,
  type PaneGeometry,
  probeSpan,
  rowZeroHolds,
  trimmedRows
} from "../../src/domain/tmux/HistoryAnchor.js"

const HEIGHT = 10

/** A grid of `total` rows `r<i>` (all scrolled past a full screen), `dropped` of them trimmed away. */
const grid = (total: number, dropped: number, limit: number) => {
  const rows = Array.from({ length: total - dropped }, (_, i) => `r${i + dropped}`)
  const g: PaneGeometry = {
    historySize: rows.length - HEIGHT,
    cursorY: HEIGHT - 1,
    height: HEIGHT,
    historyLimit: limit
  }
  /** What `capture-pane -S start -E end` prints (clamped at the oldest row, as tmux does). */
  const capture = (start: number, end: number) =>
    rows.slice(Math.max(0, g.historySize + start), g.historySize + end + 1)
  return { g, capture }
}

/** The anchor of the row after `r<n>` (rows r<n-2>, r<n-1>, r<n>). */
const anchorAfter = (n: number) => anchorOf([`r${n - 2}`, `r${n - 1}`, `r${n}`])

describe("HistoryAnchor", () => {
  it("finds a row again after the pane scrolled while the probe was on its way", () => {
    const before = grid(60, 0, 1000)
    const row = 40 // the row after r39
    for (const scrolled of [0, 1, 7, 16]) {
      const span = probeSpan(before.g, row, 16)!
      const after = grid(60 + scrolled, 0, 1000)
      const rows = after.capture(span.start, span.end)
      expect(findInProbe(before.g, after.g, row, span, rows, anchorAfter(39)), `scrolled ${scrolled}`).toBe(
        row
      )
    }
    // Scrolled past the slack: not found (the caller asks again with more).
    const span = probeSpan(before.g, row, 16)!
    const far = grid(60 + 30, 0, 1000)
    expect(
      findInProbe(before.g, far.g, row, span, far.capture(span.start, span.end), anchorAfter(39))
    ).toBeNull()
  })

  it("finds a row again after a trim during the probe, numbered as the grid numbers it now", () => {
    const limit = 100
    const before = grid(105, 0, limit)
    const row = 90
    const span = probeSpan(before.g, row, 16)!
    // Five rows more and the oldest ten dropped: the row is now number 80.
    const after = grid(110, 10, limit)
    const rows = after.capture(span.start, span.end)
    expect(findInProbe(before.g, after.g, row, span, rows, anchorAfter(89))).toBe(80)
  })

  it("looks where trims between two reads moved a row, and knows when row 0 still holds", () => {
    const g = grid(105, 0, 100).g
    expect(trimmedRows(g, 45)).toEqual([35, 25, 15, 5])
    expect(rowZeroHolds({ ...g, historySize: 89 })).toBe(true)
    expect(rowZeroHolds({ ...g, historySize: 90 })).toBe(false)
  })
})
