/**
 * End to end, many sessions at once: 20 concurrent run_command calls over 4 windows × 5 split
 * panes each get their own output and exit code, every session receives exactly its one command,
 * and reads running alongside send nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CreatedSession } from "../fakes/iterm2/FakeWorld.js"
import { listSessions, runCommand } from "../support/E2eHelpers.js"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

const WINDOWS = 4
const PANES = 5

let rig: FakeIterm2Rig
const sessions: Array<CreatedSession> = []

beforeAll(async () => {
  rig = await openFakeIterm2Rig()
  for (let w = 0; w < WINDOWS; w++) {
    const window = await rig.world.createWindow({ title: `w${w}p0` })
    sessions.push(window)
    let last = window.sessionId
    for (let p = 1; p < PANES; p++) {
      const pane = await rig.world.splitPane(last, { title: `w${w}p${p}`, vertical: p % 2 === 1 })
      sessions.push(pane)
      last = pane.sessionId
    }
  }
})

afterAll(async () => {
  await rig?.close()
})

describe("20 sessions, 20 concurrent commands", () => {
  it("lists all 20 panes ready", async () => {
    const listed = await listSessions(rig.mcp)
    expect(listed.map((s) => s.session_id).sort()).toEqual(sessions.map((s) => s.sessionId).sort())
    expect(listed.every((s) => s.execution_readiness === "ready")).toBe(true)
  })

  it("each command gets its own output and exit code; exactly one send per session", async () => {
    const { world, mcp } = rig
    const before = world.ledger.size
    const commandFor = (i: number) => `printf 'unique-%s-%s\\n' ${i} ${i * 7}; (exit ${100 + i})`

    const results = await Promise.all(
      sessions.map((s, i) =>
        runCommand(mcp, { session_id: s.sessionId, command: commandFor(i), timeout_seconds: 60 })
      )
    )

    results.forEach((result, i) => {
      expect(result.isError, JSON.stringify(result.data)).toBe(false)
      expect(result.data).toMatchObject({
        session_id: sessions[i]!.sessionId,
        command: commandFor(i),
        status: "completed",
        sent: true,
        exit_code: 100 + i,
        output: `unique-${i}-${i * 7}`,
        output_line_count: 1,
        truncated: false
      })
    })
    expect(new Set(results.map((r) => r.data.request_id)).size).toBe(sessions.length)

    const sends = world.ledger.all().slice(before)
    expect(sends).toHaveLength(sessions.length)
    sessions.forEach((s, i) => {
      expect(world.ledger.forSession(s.sessionId).map((e) => e.text)).toEqual([`${commandFor(i)}\r`])
    })
  })

  it("concurrent reads and lists alongside concurrent commands send nothing extra", async () => {
    const { world, mcp } = rig
    const before = world.ledger.size
    const runs = sessions.map((s, i) =>
      runCommand(mcp, { session_id: s.sessionId, command: `echo again-${i}`, timeout_seconds: 60 })
    )
    const reads = sessions.flatMap((s) => [
      mcp.client.callTool({ name: "read_terminal", arguments: { session_id: s.sessionId, max_lines: 20 } }),
      mcp.client.callTool({ name: "list_sessions", arguments: {} })
    ])
    const [results] = await Promise.all([Promise.all(runs), Promise.all(reads)])
    results.forEach((result, i) => {
      expect(result.data).toMatchObject({ status: "completed", exit_code: 0, output: `again-${i}` })
    })
    expect(world.ledger.size).toBe(before + sessions.length)
  })
})
