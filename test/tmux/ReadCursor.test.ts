/**
 * Read cursors over real tmux: every read returns the cursor's absolute row (as tmux's own
 * history_size + cursor_y say) and an anchor; a since read returns exactly the rows written after
 * it — also after tmux trimmed its history by a step or more (the anchor is found again) — an
 * empty text when nothing is new (the cursor's own row only once it changed), and cursorLost with the kept tail when the position left the
 * history (5,000 lines past a small history-limit, clear-history). Also a running command's
 * output so far and its growing line count.
 */
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Snapshot } from "../../src/services/Terminal.js"
import { RecordedBackend, run } from "../support/tmux/RecordedBackend.js"
import type { WorldPane } from "../support/tmux/TmuxWorld.js"

const BIG = { maxLines: 10_000, maxChars: 1_000_000 }
const seq = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i))

describe("tmux read cursors", () => {
  const rig = new RecordedBackend()

  beforeAll(async () => {
    await rig.open()
  })
  afterAll(() => rig.close())

  let gates = 0
  /** A shell fragment that waits until `open()` is called (bounded: 60 s). */
  const gate = () => {
    const file = join(rig.world.root, `gate-${++gates}`)
    return {
      wait: `for _ in $(seq 1 1200); do [ -e ${file} ] && break; sleep 0.05; done`,
      open: () => rig.world.tmux("run-shell", `touch ${file}`)
    }
  }
  const lastLine = (pane: WorldPane, line: string) =>
    rig.world.waitForScreen(pane, (screen) => screen.split("\n").at(-1) === line)
  const read = (id: string, since?: Snapshot["cursor"], bounds = BIG) =>
    run(rig.backend.terminal.read(id, bounds, since))

  /** A pane with its own history-limit. */
  const paneWithLimit = (limit: number) => rig.world.paneWithHistoryLimit(limit)

  it("returns the cursor tmux reports, then exactly the 50 lines printed after it, then nothing", async () => {
    const pane = await rig.pane()
    const { id, events } = await rig.ready(pane)
    const first = await read(id)
    const [hs, cy] = (await rig.world.format(pane.paneId, "#{history_size} #{cursor_y}"))
      .split(" ")
      .map(Number)
    expect(first.cursor.row).toBe(hs! + cy!)
    expect(first.cursorLost).toBe(false)
    const g1 = gate()
    const g2 = gate()
    await rig.start(id, events, `seq 1 50; ${g1.wait}; seq 51 100; ${g2.wait}`)
    await lastLine(pane, "50")
    const before = await read(id)
    expect(before.cursor.anchor).toMatch(/^[0-9a-f]{16}$/)
    await g1.open()
    await lastLine(pane, "100")
    const since = await read(id, before.cursor)
    expect(since).toMatchObject({
      text: seq(51, 100).join("\n"),
      lineCount: 50,
      truncated: false,
      cursorLost: false
    })
    expect(since.cursor.row).toBe(before.cursor.row + 50)
    expect(await read(id, since.cursor)).toMatchObject({ text: "", lineCount: 0, cursorLost: false })
    // Bounded as a plain read is: the newest 10 rows up to the cursor's (still empty) row, said so.
    const tail = await read(id, before.cursor, { maxLines: 10, maxChars: 10_000 })
    expect(tail).toMatchObject({ text: seq(92, 100).join("\n"), truncated: true, cursorLost: false })
    await g2.open()
    await events.next("CommandEnd")
  })

  it("returns the cursor's own row again only once it changed: a line without a newline that grows", async () => {
    const pane = await rig.pane()
    const { id, events } = await rig.ready(pane)
    const g1 = gate()
    const g2 = gate()
    await rig.start(id, events, `seq 1 3; printf part-; ${g1.wait}; printf grown; ${g2.wait}`)
    await lastLine(pane, "part-")
    const before = await read(id)
    expect(await read(id, before.cursor)).toMatchObject({ text: "", lineCount: 0, cursorLost: false })
    await g1.open()
    await lastLine(pane, "part-grown")
    const grown = await read(id, before.cursor)
    expect(grown).toMatchObject({ text: "part-grown", lineCount: 1, cursorLost: false })
    expect(await read(id, grown.cursor)).toMatchObject({ text: "", lineCount: 0, cursorLost: false })
    await g2.open()
    await events.next("CommandEnd")
  })

  /**
   * In a pane with history-limit 100: `seq 1 N` printed, a read, then `seq A B` printed (the
   * command still running); the read's snapshot, the history size at each step, and a since read.
   */
  const acrossSmallHistory = async (n: number, from: number, to: number) => {
    const pane = await paneWithLimit(100)
    const { id, events } = await rig.ready(pane)
    const g = gate()
    await rig.start(id, events, `seq 1 ${n}; ${g.wait}; seq ${from} ${to}; sleep 100`)
    await lastLine(pane, String(n))
    const before = await read(id)
    const history = () => rig.world.format(pane.paneId, "#{history_size}").then(Number)
    const hsBefore = await history()
    await g.open()
    await lastLine(pane, String(to))
    return { hsBefore, hsAfter: await history(), since: await read(id, before.cursor) }
  }

  it("finds its place again after tmux trimmed the history by a step", async () => {
    const { hsBefore, hsAfter, since } = await acrossSmallHistory(130, 131, 170)
    // The history filled up and was trimmed: every row moved up (the numbers changed).
    expect(hsAfter).toBeLessThan(hsBefore + 40)
    expect(since).toMatchObject({ text: seq(131, 170).join("\n"), truncated: false, cursorLost: false })
  })

  it("reports cursorLost with the kept tail after 5,000 lines past a small history-limit", async () => {
    const { since } = await acrossSmallHistory(20, 1001, 6000)
    expect(since.cursorLost).toBe(true)
    const lines = since.text.split("\n")
    expect(lines.at(-1)).toBe("6000")
    // What is kept: at most the history-limit plus one screen, consecutive up to the end.
    expect(lines.length).toBeLessThanOrEqual(100 + 50)
    const firstKept = Number(lines[0])
    expect(lines).toEqual(seq(firstKept, 6000))
    expect(firstKept).toBeGreaterThan(1001)
  })

  it("reports cursorLost after clear-history, with what the screen still shows", async () => {
    const pane = await rig.pane()
    const { id, events } = await rig.ready(pane)
    await rig.start(id, events, "seq 1 200")
    await events.next("CommandEnd")
    await events.next("Prompt")
    const before = await read(id)
    await rig.world.tmux("clear-history", "-t", pane.paneId)
    const since = await read(id, before.cursor)
    expect(since.cursorLost).toBe(true)
    expect(since.text.split("\n").at(-2)).toBe("200")
    expect(since.text).not.toMatch(/^1$/m)
  })

  it("gives a running command's output so far and a line count that grows", async () => {
    const pane = await rig.pane()
    const { id, events } = await rig.ready(pane)
    const g1 = gate()
    const g2 = gate()
    const promptId = await rig.start(id, events, `seq 1 30; ${g1.wait}; seq 31 60; ${g2.wait}`)
    await lastLine(pane, "30")
    const terminal = rig.backend.terminal
    expect(await run(terminal.outputLineCount(id, promptId))).toBe(30)
    expect(await run(terminal.commandOutput(id, promptId, BIG))).toMatchObject({
      text: seq(1, 30).join("\n"),
      truncated: false
    })
    await g1.open()
    await lastLine(pane, "60")
    expect(await run(terminal.outputLineCount(id, promptId))).toBe(60)
    expect(await run(terminal.commandOutput(id, promptId, { maxLines: 10, maxChars: 10_000 }))).toMatchObject(
      {
        text: seq(51, 60).join("\n"),
        truncated: true
      }
    )
    await g2.open()
    await events.next("CommandEnd")
    expect(await run(terminal.outputLineCount(id, promptId))).toBe(60)
    expect(await run(terminal.outputLineCount(id, String(Number(promptId) + 5)))).toBeNull()
  })
})
