/**
 * RowModel, pure, with hand-computed expectations: tmux's wrap at exactly the width (the pending
 * wrap), the history growing and trimmed at its limit, the alternate screen, cursor moves clamped
 * as tmux clamps them, what it gives up on, writes before the protected point, the sync verdicts,
 * and the parser's escape hook it is fed through. test/tmux/RowModelTmux.test.ts holds it to real tmux.
 */
import { describe, expect, it } from "vitest"
import { GRID_FORMAT, type GridState, parseGridState, RowModel } from "../../../src/domain/tmux/RowModel.js"
import { VtParser, type VtSink } from "../../../src/domain/VtParser.js"

const NONE = 4294967295

const state = (over: Partial<GridState> = {}): GridState => ({
  historySize: 0,
  historyLimit: 100,
  width: 10,
  height: 5,
  cursorX: 0,
  cursorY: 0,
  alternate: false,
  savedX: NONE,
  savedY: NONE,
  ...over
})

/** A model synced to `start`, fed through a VtParser; what it told its listener. */
const model = (start: Partial<GridState> = {}) => {
  const lost: Array<string> = []
  const rewritten: Array<[number, number]> = []
  const rows = new RowModel({
    rewritten: (line, col) => rewritten.push([line, col]),
    lost: (r) => lost.push(r)
  })
  expect(rows.sync(state(start))).toBe("adopted")
  const parser = new VtParser()
  const sink: VtSink = {
    print: (t) => rows.print(t),
    execute: (c) => rows.execute(c),
    csi: (p, f, i) => rows.csi(p, f, i),
    escape: (f, i) => rows.escape(f, i),
    osc: () => false,
    stringStart: (kind) => rows.stringStart(kind),
    abandoned: (kind) => rows.abandoned(kind)
  }
  const feed = (text: string) => {
    parser.write(text, sink)
    return rows.cursor
  }
  return { rows, feed, lost, rewritten }
}

describe("RowModel: printing and line feeds", () => {
  it("wraps at exactly the width: the cursor waits past the last column until the next character", () => {
    const { feed } = model()
    expect(feed("0123456789")).toEqual({ line: 0, col: 10 })
    expect(feed("a")).toEqual({ line: 1, col: 1 })
  })

  it("a pending wrap then CR stays on its row; LF keeps the column, so a character after it wraps again", () => {
    const { feed } = model()
    expect(feed("0123456789\r")).toEqual({ line: 0, col: 0 })
    expect(feed("0123456789\n")).toEqual({ line: 1, col: 10 })
    expect(feed("z")).toEqual({ line: 2, col: 1 })
  })

  it("a line feed at the bottom pushes the top row into the history: its line stays its line", () => {
    const { rows, feed } = model({ cursorY: 4 })
    expect(feed("\r\n")).toEqual({ line: 5, col: 0 })
    expect(rows.sync(state({ historySize: 1, cursorY: 4 }))).toBe("matched")
  })

  it("at the limit, tmux drops a tenth of it first (at least one row): trimmed grows by that", () => {
    const { rows, feed } = model({ historySize: 20, historyLimit: 20, cursorY: 4 })
    expect(feed("\n")).toEqual({ line: 25, col: 0 })
    expect(rows.trimmed).toBe(2)
    expect(rows.sync(state({ historySize: 19, historyLimit: 20, cursorY: 4 }))).toBe("matched")
    const small = model({ historySize: 5, historyLimit: 5, cursorY: 4 })
    small.feed("\n\n")
    expect(small.rows.trimmed).toBe(2)
    expect(small.rows.cursor).toEqual({ line: 11, col: 0 })
  })

  it("gives up on a pane without history (history-limit 0) at its first scroll", () => {
    const { feed, lost } = model({ historyLimit: 0, cursorY: 3 })
    expect(feed("\n")).toEqual({ line: 4, col: 0 })
    expect(feed("\n")).toBeNull()
    expect(lost).toEqual(["the pane keeps no history (history-limit 0)"])
  })

  it("tabs to every eighth column, never past the last", () => {
    const { feed } = model({ width: 20 })
    expect(feed("\t")).toEqual({ line: 0, col: 8 })
    expect(feed("ab\t")).toEqual({ line: 0, col: 16 })
    expect(feed("\t")).toEqual({ line: 0, col: 19 })
    expect(feed("\t")).toEqual({ line: 0, col: 19 })
  })

  it("backspace: one left (from a pending wrap too); at the start of a lower row it gives up", () => {
    const { feed, lost } = model()
    expect(feed("0123456789\b")).toEqual({ line: 0, col: 9 })
    expect(feed("\r\b")).toEqual({ line: 0, col: 0 })
    expect(feed("\n\b")).toBeNull()
    expect(lost).toEqual(["a backspace at the start of a row"])
  })

  it("counts narrow letters and symbols as one cell, and gives up on wide, combining or emoji characters", () => {
    expect(model().feed("é—❯│Ж")).toEqual({ line: 0, col: 5 })
    for (const text of ["日", "e\u0301", "👍", "\u200d", "\ufffd"]) {
      const { feed, lost } = model()
      expect(feed(text), text).toBeNull()
      expect(lost[0]).toMatch(/^a character whose width tmux may count otherwise/)
    }
  })

  it("with autowrap off, the cursor sticks at the last column", () => {
    const { feed } = model()
    expect(feed("\x1b[?7l0123456789abc")).toEqual({ line: 0, col: 9 })
    expect(feed("\x1b[?7h\x1b[10Gxy")).toEqual({ line: 1, col: 1 })
  })
})

describe("RowModel: cursor moves", () => {
  it("CUP clamps to the screen, with 0 and missing parameters read as 1", () => {
    const { feed } = model({ historySize: 3 })
    expect(feed("\x1b[99;99H")).toEqual({ line: 7, col: 9 })
    expect(feed("\x1b[0;0H")).toEqual({ line: 3, col: 0 })
    expect(feed("\x1b[;4H")).toEqual({ line: 3, col: 3 })
    expect(feed("\x1b[2H")).toEqual({ line: 4, col: 0 })
  })

  it("CUU, CUD, CUF and CUB stop at the edges; CUU at a pending wrap also steps back into the row", () => {
    const { feed } = model()
    expect(feed("\x1b[3;3H\x1b[9A")).toEqual({ line: 0, col: 2 })
    expect(feed("\x1b[9B")).toEqual({ line: 4, col: 2 })
    expect(feed("\x1b[99C")).toEqual({ line: 4, col: 9 })
    expect(feed("\x1b[99D")).toEqual({ line: 4, col: 0 })
    expect(feed("\x1b[1;1H0123456789\x1b[A")).toEqual({ line: 0, col: 9 })
    expect(feed("0\x1b[5C")).toEqual({ line: 0, col: 9 })
  })

  it("HPA, VPA, CNL, CPL and CBT", () => {
    const { feed } = model({ width: 20 })
    expect(feed("\x1b[15G")).toEqual({ line: 0, col: 14 })
    expect(feed("\x1b[3d")).toEqual({ line: 2, col: 14 })
    expect(feed("\x1b[Z")).toEqual({ line: 2, col: 8 })
    expect(feed("\x1b[E")).toEqual({ line: 3, col: 0 })
    expect(feed("x\x1b[2F")).toEqual({ line: 1, col: 0 })
  })

  it("saves and restores the cursor (ESC 7/8, CSI s/u); a restore of nothing saved gives up", () => {
    const { feed } = model()
    expect(feed("ab\x1b7\x1b[4;4H\x1b8")).toEqual({ line: 0, col: 2 })
    expect(feed("\x1b[3;3H\x1b[s\x1b[H\x1b[u")).toEqual({ line: 2, col: 2 })
    const fresh = model()
    expect(fresh.feed("\x1b8")).toBeNull()
  })

  it("ignores what tmux ignores or answers: SGR, private modes, queries, cursor style, keyboard modes", () => {
    const { feed, lost } = model()
    expect(
      feed("a\x1b[1;31m\x1b[?25l\x1b[?2004h\x1b[2 q\x1b[?2026$p\x1b[=5u\x1b[>1u\x1b[>4;1m\x1b[6n\x1b(0\x1b=b")
    ).toEqual({
      line: 0,
      col: 2
    })
    expect(lost).toEqual([])
  })
})

describe("RowModel: the alternate screen", () => {
  it("?1049h saves the main cursor and ?1049l restores it; nothing in between moves it", () => {
    const { rows, feed } = model()
    expect(feed("ab\r\ncd\x1b[?1049h")).toEqual({ line: 1, col: 2 })
    expect(feed("\x1b[5;5Hxyz\r\n\r\n\r\n\r\n\r\n\r\n")).toEqual({ line: 1, col: 2 })
    expect(rows.sync(state({ alternate: true, cursorX: 0, cursorY: 4, savedX: 2, savedY: 1 }))).toBe(
      "matched"
    )
    expect(feed("\x1b[?1049l")).toEqual({ line: 1, col: 2 })
    expect(rows.sync(state({ cursorX: 2, cursorY: 1, savedX: 2, savedY: 1 }))).toBe("matched")
  })

  it("restores a pending wrap one column back, as tmux clamps it", () => {
    expect(model().feed("0123456789\x1b[?1049hx\x1b[?1049l")).toEqual({ line: 0, col: 9 })
  })

  it("gives up on ?47h (no cursor saved) and on the scrollback cleared from the alternate screen", () => {
    expect(model().feed("\x1b[?47h")).toBeNull()
    expect(model().feed("\x1b[?1049h\x1b[3J")).toBeNull()
  })
})

describe("RowModel: what it gives up on", () => {
  it.each([
    ["the screen was cleared", "\x1b[2J"],
    ["the scrollback was cleared", "\x1b[3J"],
    ["the screen was cleared", "\x1b[H\x1b[J"],
    ["a scroll region was set", "\x1b[2;4r"],
    ["a reverse index scrolled the screen", "\x1b[H\x1bM"],
    ["rows were inserted, deleted or scrolled (CSI L)", "\x1b[L"],
    ["the tab stops were changed", "\x1bH"],
    ["the terminal was reset (ESC c)", "\x1bc"],
    ["an unsupported control sequence (CSI x)", "\x1b[5x"],
    ["an unsupported escape sequence (ESC Z)", "\x1bZ"],
    ["an unsupported escape sequence (ESC #8)", "\x1b#8"]
  ])("%s", (reason, text) => {
    const { feed, lost } = model({ cursorY: 2 })
    feed("ab")
    expect(feed(text)).toBeNull()
    expect(lost).toEqual([reason])
    expect(feed("more\r\n")).toBeNull()
  })

  it("a DCS on the main screen (it may be a sixel image), not one on the alternate screen nor other strings", () => {
    expect(model().feed("a\x1b]0;t\x07\x1b_x\x1b\\\x1bkname\x1b\\b")).toEqual({ line: 0, col: 2 })
    expect(model().feed("\x1b[?1049h\x1bPq#0\x1b\\\x1b[?1049l")).toEqual({ line: 0, col: 0 })
    const { feed, lost } = model()
    expect(feed("\x1bPq#0;2;0;0;0#0~~\x1b\\")).toBeNull()
    expect(lost).toEqual(["a DCS string (a sixel image would move the cursor)"])
  })

  it("a full scroll region (CSI r) only homes the cursor", () => {
    const { feed, lost } = model()
    expect(feed("ab\x1b[r")).toEqual({ line: 0, col: 0 })
    expect(feed("\x1b[3;3H\x1b[1;5r")).toEqual({ line: 0, col: 0 })
    expect(lost).toEqual([])
  })
})

describe("RowModel: writes before the protected point", () => {
  it("reports a write before it, once until something earlier is written; not one at or after it", () => {
    const { rows, feed, rewritten } = model()
    feed("one\r\ntwo\r\nthree")
    rows.protect(2, 5)
    feed("\r\n\x1b[2Kfour")
    expect(rewritten).toEqual([])
    feed("\x1b[3;1Hx")
    expect(rewritten).toEqual([[2, 0]])
    feed("yz\x1b[2;2Hq")
    expect(rewritten).toEqual([
      [2, 0],
      [1, 1]
    ])
    feed("\x1b[2;3H\x1b[K")
    expect(rewritten).toHaveLength(2)
    rows.protect(3, 4)
    feed("\x1b[4;1H\x1b[1K")
    expect(rewritten).toEqual([
      [2, 0],
      [1, 1],
      [3, 0]
    ])
  })

  it("reports erases: EL from the cursor or the row's start, ED 1 from the top of the screen, ECH/DCH/ICH", () => {
    const { rows, feed, rewritten } = model({ historySize: 4 })
    rows.protect(9, 0)
    feed("\x1b[5;4H\x1b[K")
    feed("\x1b[4;4H\x1b[2K")
    feed("\x1b[3;4H\x1b[3X")
    feed("\x1b[1J")
    expect(rewritten).toEqual([
      [8, 3],
      [7, 0],
      [6, 3],
      [4, 0]
    ])
  })

  it("cursor moves alone are not writes", () => {
    const { rows, feed, rewritten } = model({ cursorY: 4 })
    rows.protect(4, 5)
    feed("\x1b[H\x1b[3B\x1b[2C\r\n\x1b7\x1b8")
    expect(rewritten).toEqual([])
  })
})

describe("RowModel: sync points", () => {
  it("adopts a state when unsynced or lost, matches an exact prediction, reports a mismatch as a loss first", () => {
    const { rows, feed, lost } = model()
    feed("abc")
    expect(rows.sync(state({ cursorX: 3 }))).toBe("matched")
    feed("d")
    expect(rows.sync(state({ cursorX: 9 }))).toBe("mismatch")
    expect(lost).toEqual(["tmux's state is not the one the model predicted"])
    expect(rows.cursor).not.toBeNull()
    feed("\x1b[2J")
    expect(rows.cursor).toBeNull()
    expect(rows.sync(state({ cursorX: 1 }))).toBe("adopted")
    expect(rows.grid).toEqual(state({ cursorX: 1 }))
  })

  it("after a loss, keeps its lines when no trim or clear can have moved the history", () => {
    const { rows, feed } = model({ historySize: 2, cursorY: 1 })
    expect(feed("x")).toEqual({ line: 3, col: 1 })
    feed("\x1b[2J")
    expect(rows.cursor).toBeNull()
    expect(rows.sync(state({ historySize: 4, cursorY: 1 }))).toBe("adopted")
    expect(rows.resumed).toBe(true)
    expect(rows.trimmed).toBe(0)
    expect(rows.cursor).toEqual({ line: 5, col: 0 })
  })

  it("after a loss, numbers lines past every line it named before when the history may have moved", () => {
    // It shrank (cleared by someone, or trimmed): old lines may name other rows now.
    const shrank = model({ historySize: 2, cursorY: 1 })
    shrank.feed("\x1b[2J")
    shrank.rows.sync(state({ historySize: 1, cursorY: 1 }))
    expect(shrank.rows.resumed).toBe(false)
    expect(shrank.rows.trimmed).toBe(7)
    expect(shrank.rows.cursor).toEqual({ line: 9, col: 0 })
    // The scrollback was cleared while lost (ED 3 is watched even then).
    const cleared = model({ historySize: 2, cursorY: 1 })
    cleared.feed("\x1b[2J\x1b[3J")
    cleared.rows.sync(state({ historySize: 3, cursorY: 1 }))
    expect(cleared.rows.resumed).toBe(false)
    // A mismatch never keeps them.
    const wrong = model({ historySize: 2, cursorY: 1 })
    expect(wrong.rows.sync(state({ historySize: 3, cursorY: 1 }))).toBe("mismatch")
    expect(wrong.rows.resumed).toBe(false)
    expect(wrong.rows.trimmed).toBe(7)
  })

  it("calls a width change a mismatch (tmux reflows the history)", () => {
    const { rows } = model()
    expect(rows.sync(state({ width: 12 }))).toBe("mismatch")
  })

  it("reads GRID_FORMAT's reply, modes included, and nothing else", () => {
    expect(GRID_FORMAT.startsWith("tp-grid ")).toBe(true)
    expect(parseGridState("tp-grid 7 2000 80 24 5 23 1 3 22 0 23 1 0 1")).toEqual({
      historySize: 7,
      historyLimit: 2000,
      width: 80,
      height: 24,
      cursorX: 5,
      cursorY: 23,
      alternate: true,
      savedX: 3,
      savedY: 22,
      modes: { scrollTop: 0, scrollBottom: 23, wrap: true, origin: false, alternateScreen: true }
    })
    expect(parseGridState("tp-grid 7 2000 80 24 5 23 0 4294967295 4294967295 2 9 0 1 off")?.modes).toEqual({
      scrollTop: 2,
      scrollBottom: 9,
      wrap: false,
      origin: true,
      alternateScreen: false
    })
    for (const bad of [
      "",
      "tp-grid 1 2 3",
      "tp-grid 7 2000 0 24 5 23 0 0 0 0 23 1 0 1",
      "x 7 2000 80 24 5 23 0 0 0 0 23 1 0 1"
    ])
      expect(parseGridState(bad), bad).toBeNull()
  })

  it("a state's modes are part of the prediction, and adopted", () => {
    const modes = { scrollTop: 1, scrollBottom: 3, wrap: true, origin: false, alternateScreen: true }
    const { rows, feed, lost } = model({ modes })
    expect(feed("\x1b[5;1H\n")).toEqual({ line: 4, col: 0 })
    expect(feed("\x1b[4;1H\n")).toBeNull()
    expect(lost).toEqual(["a scroll region scrolled"])
    rows.sync(state({ modes }))
    expect(rows.sync(state({ modes: { ...modes, wrap: false } }))).toBe("mismatch")
  })
})

describe("VtParser's escape hook", () => {
  it("reports ESC sequences with their intermediates, and a CSI's intermediates", () => {
    const seen: Array<string> = []
    const sink: VtSink = {
      print: () => {},
      execute: () => {},
      csi: (params, final, intermediates) =>
        seen.push(`csi ${params}|${intermediates}|${String.fromCharCode(final)}`),
      escape: (final, intermediates) => seen.push(`esc ${intermediates}|${String.fromCharCode(final)}`),
      osc: () => false,
      stringStart: () => {},
      abandoned: () => {}
    }
    new VtParser().write("\x1b7\x1b(B\x1b#8\x1b]0;t\x1b\\\x1b[2 q\x1b[?2026$p\x1b[5A\x1bP1$r\x1b\\", sink)
    expect(seen).toEqual([
      "esc |7",
      "esc (|B",
      "esc #|8",
      "esc |\\",
      "csi 2| |q",
      "csi ?2026|$|p",
      "csi 5||A"
    ])
  })
})
