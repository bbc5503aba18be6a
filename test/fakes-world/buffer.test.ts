/**
 * GetBuffer / number_of_lines of the fake iTerm2 world against real bash output: absolute line
 * numbers that stay stable when the scrollback overflows, soft wraps, LineRange presence rules,
 * and the alternate screen.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { LineRange } from "../../src/generated/iterm2/Iterm2Messages.js"
import { FakeWorld } from "../fakes/iterm2/FakeWorld.js"
import { CollectingConnection, call, getLines, getPrompt, joinLines } from "./harness.js"

const ROWS = 10
const COLS = 40
const SCROLLBACK = 30

describe("fake iTerm2 buffer (real bash)", () => {
  let world: FakeWorld
  let sessionId: string
  const conn = new CollectingConnection()

  beforeAll(async () => {
    world = new FakeWorld({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK })
    sessionId = (await world.createWindow()).sessionId
  })
  afterAll(async () => {
    await world.dispose()
  })

  const lineInfo = async () => {
    const r = await call(
      world,
      { get_property_request: { session_id: sessionId, name: "number_of_lines" } },
      conn
    )
    expect(r?.get_property_response?.status).toBe("OK")
    return JSON.parse(r!.get_property_response!.json_value!) as {
      overflow: number
      grid: number
      history: number
      first_visible: number
    }
  }
  const buffer = async (lineRange: LineRange) =>
    call(world, { get_buffer_request: { session: sessionId, line_range: lineRange } }, conn)

  it("keeps absolute line numbers stable after the scrollback overflows", async () => {
    const editing = await getPrompt(world, conn, sessionId)
    const first = editing.command_range!.start!.y! + 1 // the line that will show "1"
    await world.runAsUser(sessionId, "seq 1 100")
    // The prompt's own line scrolled out of the history, and its mark went with it.
    expect((await getPrompt(world, conn, sessionId, editing.unique_prompt_id!)).status).toBe(
      "PROMPT_UNAVAILABLE"
    )

    const info = await lineInfo()
    expect(info.grid).toBe(ROWS)
    expect(info.history).toBe(SCROLLBACK)
    expect(info.overflow).toBeGreaterThan(first) // the line with "1" is gone
    expect(info.first_visible).toBe(info.overflow + info.history)

    // Line "k" is still at first + k - 1, however much has scrolled away.
    const mid = await getLines(world, conn, sessionId, first + 94, 5)
    expect(mid.contents!.map((l) => l.text)).toEqual(["95", "96", "97", "98", "99"])
    expect(mid.windowed_coord_range!.coord_range).toEqual({
      start: { x: 0, y: first + 94 },
      end: { x: 0, y: first + 99 }
    })

    // Asking from line 0 returns only what still exists, starting at overflow.
    const all = await getLines(world, conn, sessionId, 0, info.overflow + info.history + info.grid)
    expect(all.windowed_coord_range!.coord_range!.start!.y).toBe(info.overflow)
    expect(all.contents!.length).toBe(info.history + info.grid)
    expect(all.contents![0]!.text).toBe(String(info.overflow - first + 1))

    // trailing_lines: the last N lines of history + grid, capped at what exists.
    const trailing = await buffer({ trailing_lines: 3 })
    const r = trailing!.get_buffer_response!
    expect(r.windowed_coord_range!.coord_range).toEqual({
      start: { x: 0, y: info.overflow + info.history + info.grid - 3 },
      end: { x: 0, y: info.overflow + info.history + info.grid }
    })
    const cursor = r.cursor!
    const lastPrompt = await getPrompt(world, conn, sessionId)
    expect(cursor).toEqual(lastPrompt.command_range!.end)
    const capped = (await buffer({ trailing_lines: 100_000 }))!.get_buffer_response!
    expect(capped.contents!.length).toBe(info.history + info.grid)
  })

  it("reads the screen with an absolute cursor and omits trailing uninitialized cells", async () => {
    await world.runAsUser(sessionId, "clear")
    await world.runAsUser(sessionId, "printf 'a  b   \\n'")
    const info = await lineInfo()
    const screen = (await buffer({ screen_contents_only: true }))!.get_buffer_response!
    expect(screen.status).toBe("OK")
    expect(screen.windowed_coord_range!.coord_range).toEqual({
      start: { x: 0, y: info.overflow + info.history },
      end: { x: 0, y: info.overflow + info.history + ROWS }
    })
    expect(screen.contents!.length).toBe(ROWS)
    const texts = screen.contents!.map((l) => l.text)
    expect(texts).toContain("a  b   ") // written spaces are kept
    const cursorRow = screen.cursor!.y! - screen.windowed_coord_range!.coord_range!.start!.y!
    expect(texts[cursorRow]).toMatch(/\$ $/)
    expect(texts[ROWS - 1]).toBe("")
  })

  it("marks soft-wrapped lines SOFT and joins them back", async () => {
    const long = "x".repeat(COLS + 25)
    const promptId = world.lastPromptId(sessionId)!
    await world.runAsUser(sessionId, `printf '%s\\n' ${long}`)
    const prompt = await getPrompt(world, conn, sessionId, promptId)
    const start = prompt.output_range!.start!.y!
    const lines = await getLines(world, conn, sessionId, start, prompt.output_range!.end!.y! - start)
    expect(lines.contents!.map((l) => l.continuation)).toEqual([
      "CONTINUATION_SOFT_EOL",
      "CONTINUATION_HARD_EOL"
    ])
    expect(joinLines(lines)).toBe(`${long}\n`)
    // A range that ends mid-line reports that last partial line as SOFT.
    const windowed = { coord_range: { start: { x: 2, y: start }, end: { x: 5, y: start } } }
    const part = (await buffer({ windowed_coord_range: windowed }))!.get_buffer_response!
    expect(part.contents).toEqual([
      {
        text: "xxx",
        code_points_per_cell: [{ num_code_points: 1, repeats: 3 }],
        continuation: "CONTINUATION_SOFT_EOL"
      }
    ])
  })

  it("replies with no submessage unless exactly one LineRange option is set", async () => {
    expect(await buffer({})).toBeUndefined()
    expect(await buffer({ screen_contents_only: true, trailing_lines: 2 })).toBeUndefined()
    expect((await buffer({ screen_contents_only: false }))?.get_buffer_response?.status).toBe("OK")
    const missing = await call(
      world,
      { get_buffer_request: { session: "NO-SUCH-SESSION", line_range: { trailing_lines: 1 } } },
      conn
    )
    expect(missing?.get_buffer_response?.status).toBe("SESSION_NOT_FOUND")
  })

  it("detects the alternate screen and keeps the main screen's history", async () => {
    const showing = async () => {
      const r = await call(
        world,
        { variable_request: { session_id: sessionId, get: ["showingAlternateScreen"] } },
        conn
      )
      return r?.variable_response?.values?.[0]
    }
    expect(await showing()).toBe("false")
    const before = await lineInfo()
    await world.runAsUser(sessionId, "printf '\\033[?1049h'; echo in-alt")
    expect(await showing()).toBe("true")
    const during = await lineInfo()
    expect(during.history).toBe(before.history)
    const screen = (await buffer({ screen_contents_only: true }))!.get_buffer_response!
    expect(screen.contents!.map((l) => l.text)).toContain("in-alt")
    await world.runAsUser(sessionId, "printf '\\033[?1049l'")
    expect(await showing()).toBe("false")
    expect(world.screenText(sessionId).split("\n")).not.toContain("in-alt")
  })
})
