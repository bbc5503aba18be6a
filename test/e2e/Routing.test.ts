/**
 * End to end, where a command may go: only to the exact session id given, only when that shell
 * is idle at an empty prompt with shell integration. Every refusal is checked against the fake's
 * SendText ledger (zero sends), and a session lost mid-wait reports session_lost.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  currentSession,
  expectNothingSent,
  expectRejected,
  listSessions,
  readTerminal,
  runCommand,
  waitForReadiness
} from "../support/E2eHelpers.js"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

let rig: FakeIterm2Rig

beforeAll(async () => {
  rig = await openFakeIterm2Rig()
})

afterAll(async () => {
  await rig?.close()
})

const MARKER = "echo ROUTING-MUST-NOT-RUN"

describe("run_command resolves only exact session ids", () => {
  it("refuses an unknown id, a title, a label, a window id, a tab id and id variants, sending nothing", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow({ title: "target-title", windowTitle: "Target window" })
    world.focus(s.sessionId)
    const notIds = [
      "6A0F7E1C-0000-4000-8000-000000000000",
      "target-title",
      "Target window",
      "current",
      "focused",
      s.windowId!,
      s.tabId!,
      s.sessionId.toLowerCase(),
      ` ${s.sessionId}`,
      `${s.sessionId} `,
      `w0t0p0:${s.sessionId}`,
      s.sessionId.slice(0, 8),
      "all"
    ]
    for (const id of notIds) {
      const result = await expectNothingSent(world, () =>
        runCommand(mcp, { session_id: id, command: MARKER })
      )
      expectRejected(result, "session_not_found")
      expect(result.data.session_id).toBe(id)
    }
    expect(world.screenText(s.sessionId)).not.toContain("ROUTING-MUST-NOT-RUN")
    // An ITERM_SESSION_ID is refused too, with a hint that names the id's form.
    const termid = await runCommand(mcp, { session_id: `w0t0p0:${s.sessionId}`, command: MARKER })
    expect(String(termid.data.message)).toContain("ITERM_SESSION_ID")
  })

  // iTerm2 resolves the reserved id "active" to the focused session in GetPrompt, SendText and
  // GetBuffer. A caller's "active" is a label, not an id: it must never reach that session.
  it('run_command refuses "active" (iTerm2\'s alias for the focused session), sending nothing', async () => {
    const { world, mcp } = rig
    const s = await world.createWindow({ title: "focused-one" })
    world.focus(s.sessionId)
    const result = await expectNothingSent(world, () =>
      runCommand(mcp, { session_id: "active", command: MARKER, timeout_seconds: 2 })
    )
    expectRejected(result, "session_not_found")
  })

  it('read_terminal refuses "active" instead of reading the focused session', async () => {
    const { world, mcp } = rig
    const s = await world.createWindow({ title: "focused-two" })
    world.focus(s.sessionId)
    const read = await expectNothingSent(world, () => readTerminal(mcp, { session_id: "active" }))
    expect(read.isError, JSON.stringify(read.data)).toBe(true)
    expect(read.data).toMatchObject({ error_code: "session_not_found" })
  })

  it("refuses a closed session", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    await world.closeSession(s.sessionId)
    const result = await expectNothingSent(world, () =>
      runCommand(mcp, { session_id: s.sessionId, command: MARKER })
    )
    expectRejected(result, "session_not_found")
  })

  it("refuses a session closed between list_sessions and run_command", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    const sessions = await listSessions(mcp)
    const seen = sessions.find((x) => x.session_id === s.sessionId)
    expect(seen?.execution_readiness).toBe("ready")
    await world.closeSession(s.sessionId)
    const result = await expectNothingSent(world, () =>
      runCommand(mcp, { session_id: seen!.session_id, command: MARKER })
    )
    expectRejected(result, "session_not_found")
  })

  it("sends to the id given even when focus moves after get_current_session", async () => {
    const { world, mcp } = rig
    const a = await world.createWindow({ title: "was-focused" })
    const b = await world.createWindow({ title: "now-focused" })
    world.focus(a.sessionId)
    const current = await currentSession(mcp)
    expect(current.data.session_id).toBe(a.sessionId)
    world.focus(b.sessionId)
    const before = world.ledger.size

    const result = await runCommand(mcp, { session_id: current.data.session_id, command: "echo went-to-a" })
    expect(result.data).toMatchObject({
      session_id: a.sessionId,
      status: "completed",
      exit_code: 0,
      output: "went-to-a"
    })
    expect(world.ledger.all().slice(before)).toEqual([
      expect.objectContaining({ session: a.sessionId, text: "echo went-to-a\r" })
    ])
    expect(world.ledger.forSession(b.sessionId)).toEqual([])
    expect(world.screenText(b.sessionId)).not.toContain("went-to-a")
  })
})

describe("run_command refuses a session that is not at an empty prompt", () => {
  it("busy: a command the user started is still running", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    world.type(s.sessionId, "sleep 30\r")
    await waitForReadiness(mcp, s.sessionId, "busy")
    const result = await expectNothingSent(world, () =>
      runCommand(mcp, { session_id: s.sessionId, command: MARKER })
    )
    expectRejected(result, "session_not_ready")
    await world.closeSession(s.sessionId)
  })

  it("input_pending: the user's half-typed text stays as it was", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    world.type(s.sessionId, "echo half-typed")
    await waitForReadiness(mcp, s.sessionId, "input_pending")
    const result = await expectNothingSent(world, () =>
      runCommand(mcp, { session_id: s.sessionId, command: MARKER })
    )
    expectRejected(result, "session_not_ready")
    const screen = await readTerminal(mcp, { session_id: s.sessionId })
    expect(screen.data.content.split("\n").at(-1)).toBe("tp:~$ echo half-typed")
  })

  it("interactive: a full-screen pager holds the screen", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    await world.runAsUser(s.sessionId, "seq 1 200 > pager-input.txt")
    world.type(s.sessionId, "less pager-input.txt\r")
    await waitForReadiness(mcp, s.sessionId, "interactive")
    const result = await expectNothingSent(world, () =>
      runCommand(mcp, { session_id: s.sessionId, command: MARKER })
    )
    expectRejected(result, "session_not_ready")
    expect(world.screenText(s.sessionId)).not.toContain("ROUTING-MUST-NOT-RUN")
  })

  it("interactive: the alternate screen is on even though the shell shows a prompt", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    await world.runAsUser(s.sessionId, "printf '\\e[?1049h'")
    await waitForReadiness(mcp, s.sessionId, "interactive")
    const result = await expectNothingSent(world, () =>
      runCommand(mcp, { session_id: s.sessionId, command: MARKER })
    )
    expectRejected(result, "session_not_ready")
  })

  it("shell_integration_required: a session without shell integration", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow({ integration: false })
    await waitForReadiness(mcp, s.sessionId, "shell_integration_required")
    const result = await expectNothingSent(world, () =>
      runCommand(mcp, { session_id: s.sessionId, command: MARKER })
    )
    expectRejected(result, "shell_integration_required")
  })
})

describe("a session that closes while run_command waits", () => {
  it("reports session_lost with sent true", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    const before = world.ledger.size
    const pending = runCommand(mcp, { session_id: s.sessionId, command: "sleep 30", timeout_seconds: 20 })
    await world.waitFor(s.sessionId, (shell) => shell.prompts.last()?.phase === "running", 10_000)
    await world.closeSession(s.sessionId)

    const result = await pending
    expect(result.isError).toBe(false)
    expect(result.data).toMatchObject({
      session_id: s.sessionId,
      command: "sleep 30",
      status: "session_lost",
      sent: true,
      exit_code: null,
      error_code: "session_lost"
    })
    expect(world.ledger.all().slice(before)).toEqual([
      expect.objectContaining({ session: s.sessionId, text: "sleep 30\r" })
    ])
  })
})
