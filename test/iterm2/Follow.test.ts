/**
 * Following output on the iTerm2 backend against the protocol-level fake (real bash in PTYs): read
 * cursors and `since` reads (only what is new, cursor_lost once it left the history, no more rows
 * fetched than returned), and a running command's output so far and its row count.
 */
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CursorPosition, ReadBounds } from "../../src/services/Terminal.js"
import { Terminal } from "../../src/services/Terminal.js"
import type { FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import { type BackendRig, openBackendRig } from "./BackendRig.js"

const WIDE: ReadBounds = { maxLines: 10_000, maxChars: 1_000_000 }
const numbers = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => String(from + i)).join("\n")

/** A file the test creates to let a waiting command go on: `wait` is the shell side. */
const gate = (rig: BackendRig) => {
  const path = join(rig.world.home, `gate-${randomUUID()}`)
  return { wait: `while [ ! -e ${path} ]; do sleep 0.02; done`, open: () => writeFileSync(path, "") }
}

/** Waits until the row just above the cursor reads `text` and the cursor is at column 0. */
const printed = (rig: BackendRig, sessionId: string, text: string) =>
  rig.world.waitFor(sessionId, (shell) => {
    const cursor = shell.screen.cursor()
    return cursor.x === 0 && shell.screen.text(cursor.y - 1) === text
  })

/** Rows the backend asked for outside the screen (windowed GetBuffers) from request `mark` on. */
const rowsFetched = (server: FakeIterm2Server, mark: number) =>
  server.requests.slice(mark).reduce((sum, { request }) => {
    const range = request.get_buffer_request?.line_range?.windowed_coord_range?.coord_range
    return range === undefined ? sum : sum + Number(range.end?.y ?? 0) - Number(range.start?.y ?? 0)
  }, 0)

const read = (rig: BackendRig, sessionId: string, bounds: ReadBounds, since?: CursorPosition) =>
  rig.run(Effect.flatMap(Terminal, (t) => t.read(sessionId, bounds, since)))

describe("read cursors (iTerm2)", () => {
  let rig: BackendRig
  beforeAll(async () => {
    rig = await openBackendRig()
  })
  afterAll(async () => {
    await rig?.close()
  })

  it("a read, 50 new lines, a read since its cursor: exactly those 50; then nothing new: empty", async () => {
    const { sessionId } = await rig.world.createWindow()
    const g = gate(rig)
    await rig.run(
      Effect.flatMap(Terminal, (t) => t.submit(sessionId, `seq 1 50; ${g.wait}; seq 51 100; sleep 100`))
    )
    await printed(rig, sessionId, "50")
    const first = await read(rig, sessionId, WIDE)
    expect(first.cursor).toEqual({
      row: rig.world.shell(sessionId).screen.cursor().y,
      anchor: null,
      rowDigest: expect.stringMatching(/^[0-9a-f]{16}$/)
    })
    expect(first.cursorLost).toBe(false)

    g.open()
    await printed(rig, sessionId, "100")
    const next = await read(rig, sessionId, WIDE, first.cursor)
    expect(next).toMatchObject({ text: numbers(51, 100), lineCount: 50, truncated: false, cursorLost: false })
    expect(next.cursor.row).toBe(first.cursor.row + 50)

    const nothing = await read(rig, sessionId, WIDE, next.cursor)
    expect(nothing).toMatchObject({ text: "", lineCount: 0, truncated: false, cursorLost: false })
    expect(nothing.cursor).toEqual(next.cursor)

    // Tail-bounded: the newest rows only, and no more rows fetched than returned.
    const mark = rig.server.requests.length
    const tail = await read(rig, sessionId, { maxLines: 10, maxChars: 10_000 }, first.cursor)
    expect(tail).toMatchObject({ text: numbers(91, 100), lineCount: 10, truncated: true, cursorLost: false })
    expect(rowsFetched(rig.server, mark)).toBeLessThanOrEqual(10)
  })

  it("includes the cursor's own row when it grew (text typed at the prompt)", async () => {
    const { sessionId } = await rig.world.createWindow()
    const first = await read(rig, sessionId, WIDE)
    rig.world.type(sessionId, "echo grown")
    await rig.world.waitFor(sessionId, (shell) => shell.screen.screenText().includes("echo grown"))
    const next = await read(rig, sessionId, WIDE, first.cursor)
    expect(next).toMatchObject({ lineCount: 1, cursorLost: false })
    expect(next.text).toMatch(/\$ echo grown$/)
    expect(next.cursor.row).toBe(first.cursor.row)
  })

  it("a position past every row there is (not this history's) is lost: the bounded tail", async () => {
    const { sessionId } = await rig.world.createWindow()
    await rig.world.runAsUser(sessionId, "echo before-the-tail")
    const plain = await read(rig, sessionId, { maxLines: 2, maxChars: 10_000 })
    const lost = await read(
      rig,
      sessionId,
      { maxLines: 2, maxChars: 10_000 },
      { row: 1e12, anchor: null, rowDigest: null }
    )
    expect(lost).toMatchObject({ text: plain.text, cursorLost: true, truncated: true })
    expect(lost.text).toMatch(/^before-the-tail\ntp:.*\$$/)
    expect(lost.cursor).toEqual(plain.cursor)
  })
})

describe("read cursors past a small history (iTerm2)", () => {
  const SCROLLBACK = 100
  let rig: BackendRig
  beforeAll(async () => {
    rig = await openBackendRig({ world: { scrollback: SCROLLBACK } })
  })
  afterAll(async () => {
    await rig?.close()
  })

  it("5,000 new lines: cursor_lost and the kept tail, bounded", async () => {
    const { sessionId } = await rig.world.createWindow()
    const first = await read(rig, sessionId, WIDE)
    const { promptId } = await rig.run(Effect.flatMap(Terminal, (t) => t.submit(sessionId, "seq 1 5000")))
    const shell = rig.world.shell(sessionId)
    await rig.world.waitFor(sessionId, (s) => s.atPrompt() && s.prompts.last()?.id !== promptId)
    const overflow = shell.screen.overflow
    expect(overflow).toBeGreaterThan(first.cursor.row)

    const kept = await read(rig, sessionId, WIDE, first.cursor)
    const cursorY = shell.screen.cursor().y
    expect(kept.cursor.row).toBe(cursorY)
    expect(kept).toMatchObject({ cursorLost: true, truncated: false, lineCount: cursorY - overflow + 1 })
    const lines = kept.text.split("\n")
    expect(lines.at(-1)).toMatch(/\$$/) // the new prompt, on the cursor's row
    expect(lines.slice(0, -1).join("\n")).toBe(numbers(5000 - (cursorY - overflow) + 1, 5000))

    const mark = rig.server.requests.length
    const tail = await read(rig, sessionId, { maxLines: 20, maxChars: 10_000 }, first.cursor)
    expect(tail).toMatchObject({ cursorLost: true, truncated: true, lineCount: 20 })
    expect(tail.text).toBe(lines.slice(-20).join("\n"))
    expect(rowsFetched(rig.server, mark)).toBeLessThanOrEqual(20)

    // A cursor taken after the loss is good again: nothing new since, so nothing (not the prompt row).
    const again = await read(rig, sessionId, WIDE, kept.cursor)
    expect(again).toMatchObject({ cursorLost: false, lineCount: 0, text: "" })
  })
})

describe("a running command's output so far (iTerm2)", () => {
  let rig: BackendRig
  beforeAll(async () => {
    rig = await openBackendRig()
  })
  afterAll(async () => {
    await rig?.close()
  })

  const count = (sessionId: string, promptId: string) =>
    rig.run(Effect.flatMap(Terminal, (t) => t.outputLineCount(sessionId, promptId)))
  const output = (sessionId: string, promptId: string, bounds: ReadBounds = WIDE) =>
    rig.run(Effect.flatMap(Terminal, (t) => t.commandOutput(sessionId, promptId, bounds)))

  it("counts rows and returns the output so far while the command prints, then its final output", async () => {
    const { sessionId } = await rig.world.createWindow()
    const g1 = gate(rig)
    const g2 = gate(rig)
    const { promptId } = await rig.run(
      Effect.flatMap(Terminal, (t) => t.submit(sessionId, `${g1.wait}; seq 1 3; ${g2.wait}; seq 4 12`))
    )
    await rig.world.waitFor(sessionId, (shell) => shell.prompts.byId(promptId!)?.outputStart != null)
    expect(await count(sessionId, promptId!)).toBe(0)
    expect(await output(sessionId, promptId!)).toEqual({
      text: "",
      lineCount: 0,
      truncated: false,
      totalLines: 0
    })

    g1.open()
    await printed(rig, sessionId, "3")
    expect(await count(sessionId, promptId!)).toBe(3)
    expect(await output(sessionId, promptId!)).toEqual({
      text: numbers(1, 3),
      lineCount: 3,
      truncated: false,
      totalLines: 3
    })

    g2.open()
    await rig.world.waitFor(sessionId, (shell) => shell.atPrompt() && shell.prompts.last()?.id !== promptId)
    // Ended: the range stops at the next prompt, not at the cursor after it; all 12 lines counted.
    expect(await count(sessionId, promptId!)).toBe(12)
    expect(await output(sessionId, promptId!, { maxLines: 4, maxChars: 1000 })).toEqual({
      text: numbers(9, 12),
      lineCount: 4,
      truncated: true,
      totalLines: 12
    })
  })

  it("is null for a prompt whose command has not started (no output range)", async () => {
    const { sessionId } = await rig.world.createWindow()
    rig.world.type(sessionId, "echo not-entered")
    await rig.world.waitFor(sessionId, (shell) => shell.screen.screenText().includes("not-entered"))
    expect(await count(sessionId, rig.world.lastPromptId(sessionId)!)).toBeNull()
  })
})
