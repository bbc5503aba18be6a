/**
 * End to end over real tmux: following a long output with read_terminal's `since` cursor — only
 * the lines written after it, `cursor_lost` once tmux trimmed them out of its history (or the
 * history was cleared), and a cursor is only ever accepted for the pane it came from.
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
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig

beforeAll(async () => {
  rig = await openTmuxRig()
})

afterAll(async () => {
  await rig?.close()
})

describe("read_terminal since on tmux", () => {
  it("a read, 50 new lines, a read with since: exactly those 50", async () => {
    const pane = await rig.pane()
    const sent = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "sleep 1; seq -f 'row-%g' 1 50; sleep 100",
      wait_for_completion: false
    })
    await waitForReadiness(rig.mcp, pane.id, "busy")
    // Busy counts from the send; read once the shell has echoed the whole line (a row still being
    // echoed changes after the read, and a since read rightly returns a row that changed).
    await rig.world.waitForScreen(pane, (screen) => screen.includes("sleep 100"))
    const first = await readTerminal(rig.mcp, { session_id: pane.id, max_lines: 20 })
    expect(first.isError, JSON.stringify(first.data)).toBe(false)
    expect(first.data.content).not.toContain("row-1")
    await rig.world.waitForScreen(pane, (screen) => screen.includes("row-50"))

    const next = await readTerminal(rig.mcp, { session_id: pane.id, since: first.data.cursor })
    expect(next.isError, JSON.stringify(next.data)).toBe(false)
    expect(next.data.content).toBe(numbered("row-", 1, 50).join("\n"))
    expect(next.data).toMatchObject({ line_count: 50, truncated: false, cursor_lost: false })
    const idle = await readTerminal(rig.mcp, { session_id: pane.id, since: next.data.cursor })
    expect(idle.data).toMatchObject({ content: "", line_count: 0, cursor_lost: false })

    const stopped = await interruptCommand(rig.mcp, { request_id: sent.data.request_id, wait_seconds: 10 })
    expect(stopped.data).toMatchObject({ status: "completed", exit_code: 130, interrupt_sent: true })
  })

  it("5,000 new lines past a 1,000-line history: the kept lines and cursor_lost", async () => {
    // Its own session keeps its own limit (tmux 3.7 applies a changed global limit to existing panes).
    await rig.world.tmux("set", "-g", "history-limit", "1000")
    const pane = await rig.pane({ session: "limit-1000" })
    await rig.world.tmux("set", "-t", "limit-1000", "history-limit", "1000")
    await rig.world.tmux("set", "-g", "history-limit", "10000")
    await expectCursorLostPastHistory(rig.mcp, pane.id, 1000, 60)
  })

  it("at an idle prompt nothing new is nothing; typing at the prompt brings that row back", async () => {
    const pane = await rig.pane()
    await expectNothingNewAtPrompt(rig.mcp, pane.id, async (text) => {
      await rig.world.type(pane, text)
      await rig.world.waitForScreen(pane, (screen) => screen.includes(text))
    })
  })

  it("a cursor with any one character changed is invalid_request", async () => {
    const pane = await rig.pane()
    const read = await readTerminal(rig.mcp, { session_id: pane.id })
    await expectEditedCursorsRefused(rig.mcp, pane.id, read.data.cursor)
  })

  it("clear-history loses the cursor; another pane's cursor is invalid_request", async () => {
    const a = await rig.pane()
    const b = await rig.pane()
    await runCommand(rig.mcp, { session_id: a.id, command: "seq 1 100" })
    const fromA = await readTerminal(rig.mcp, { session_id: a.id })
    await rig.world.tmux("clear-history", "-t", a.paneId)
    await runCommand(rig.mcp, { session_id: a.id, command: "clear; echo fresh" })
    const after = await readTerminal(rig.mcp, { session_id: a.id, since: fromA.data.cursor })
    expect(after.data.cursor_lost).toBe(true)
    expect(after.data.content).toContain("fresh")

    const crossed = await readTerminal(rig.mcp, { session_id: b.id, since: fromA.data.cursor })
    expect(crossed.isError).toBe(true)
    expect(crossed.data).toMatchObject({ error_code: "invalid_request" })
  })
})
