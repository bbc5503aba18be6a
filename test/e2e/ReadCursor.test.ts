/**
 * End to end on the fake iTerm2: following a long output with read_terminal's `since` cursor —
 * only the lines written after it come back, `cursor_lost` when some scrolled out of the history,
 * and a cursor is only ever accepted for the session it came from.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  expectCursorLostPastHistory,
  expectEditedCursorsRefused,
  expectNothingNewAtPrompt,
  interruptCommand,
  numbered,
  readTerminal,
  runCommand,
  waitForReadiness
} from "../support/E2eHelpers.js"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"
import { waitUntil } from "../support/tmux/Recorder.js"

let rig: FakeIterm2Rig

beforeAll(async () => {
  rig = await openFakeIterm2Rig({ world: { scrollback: 500 } })
})

afterAll(async () => {
  await rig?.close()
})

describe("read_terminal since", () => {
  it("a read, 50 new lines, a read with since: exactly those 50", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    const sent = await runCommand(mcp, {
      session_id: s.sessionId,
      command: "sleep 1; seq -f 'row-%g' 1 50; sleep 100",
      wait_for_completion: false
    })
    await waitForReadiness(mcp, s.sessionId, "busy")
    const first = await readTerminal(mcp, { session_id: s.sessionId, max_lines: 20 })
    expect(first.isError, JSON.stringify(first.data)).toBe(false)
    expect(first.data.cursor_lost).toBe(false)
    expect(first.data.content).not.toContain("row-1")
    await waitUntil("row-50 on screen", () => world.screenText(s.sessionId).includes("row-50"), 10_000)

    const next = await readTerminal(mcp, { session_id: s.sessionId, since: first.data.cursor })
    expect(next.isError, JSON.stringify(next.data)).toBe(false)
    expect(next.data.content).toBe(numbered("row-", 1, 50).join("\n"))
    expect(next.data).toMatchObject({ line_count: 50, truncated: false, cursor_lost: false })

    // Nothing new since: nothing comes back.
    const idle = await readTerminal(mcp, { session_id: s.sessionId, since: next.data.cursor })
    expect(idle.data).toMatchObject({ content: "", line_count: 0, cursor_lost: false })

    // The bounds still apply to a since read: the newest lines are kept.
    const bounded = await readTerminal(mcp, {
      session_id: s.sessionId,
      since: first.data.cursor,
      max_lines: 5
    })
    expect(bounded.data).toMatchObject({ content: numbered("row-", 46, 50).join("\n"), truncated: true })

    const stopped = await interruptCommand(mcp, { request_id: sent.data.request_id, wait_seconds: 10 })
    expect(stopped.data).toMatchObject({ status: "completed", exit_code: 130, interrupt_sent: true })
  })

  it("5,000 new lines past a 500-line history: the kept lines and cursor_lost", async () => {
    const s = await rig.world.createWindow()
    await expectCursorLostPastHistory(rig.mcp, s.sessionId, 500, 30)
  })

  it("at an idle prompt nothing new is nothing; typing at the prompt brings that row back", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    await expectNothingNewAtPrompt(mcp, s.sessionId, async (text) => {
      world.type(s.sessionId, text)
      await waitUntil("typed text on screen", () => world.screenText(s.sessionId).includes(text), 10_000)
    })
  })

  it("a cursor with any one character changed is invalid_request, and nothing is read", async () => {
    const { world, mcp, server } = rig
    const s = await world.createWindow()
    const read = await readTerminal(mcp, { session_id: s.sessionId })
    const bufferReads = () => server.requests.filter((r) => r.request.get_buffer_request != null).length
    expect(bufferReads()).toBeGreaterThan(0)
    await expectEditedCursorsRefused(mcp, s.sessionId, read.data.cursor, bufferReads)
  })

  it("another session's cursor, or a made-up one, is invalid_request", async () => {
    const { world, mcp } = rig
    const a = await world.createWindow()
    const b = await world.createWindow()
    const fromA = await readTerminal(mcp, { session_id: a.sessionId })
    const crossed = await readTerminal(mcp, { session_id: b.sessionId, since: fromA.data.cursor })
    expect(crossed.isError).toBe(true)
    expect(crossed.data).toMatchObject({ error_code: "invalid_request" })
    expect(String((crossed.data as unknown as { message: string }).message)).toMatch(/another session/)
    for (const since of ["", "not a cursor!", "AAAA", "x".repeat(300)]) {
      const bad = await readTerminal(mcp, { session_id: a.sessionId, since })
      expect(bad.isError, since).toBe(true)
      expect(bad.data).toMatchObject({ error_code: "invalid_request" })
    }
  })
})
