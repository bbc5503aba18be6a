/**
 * End to end over real tmux, 20 panes (4 windows × 5 panes) and 20 concurrent run_command calls:
 * each gets its own output and exit code, and each pane's recorder holds exactly its own command,
 * also with reads and lists running alongside.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listSessions, runCommand } from "../support/E2eHelpers.js"
import { openTmuxRig, type RigPane, settle, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig
const panes: Array<RigPane> = []

beforeAll(async () => {
  rig = await openTmuxRig()
  await rig.pane() // the session, and TermPilot's control client on it
  for (let w = 0; w < 4; w++) {
    for (const created of await rig.world.tiledWindow("main", 5)) {
      const pane = { ...created, id: await rig.world.sessionId(created) }
      await settle(rig.mcp, pane, "ready")
      panes.push(pane)
    }
  }
}, 120_000)

afterAll(async () => {
  await rig?.close()
})

describe("20 panes, 20 concurrent commands", () => {
  it("each command gets its own output and exit code; each pane received exactly its command", async () => {
    // The 20 panes (and the session's first window, which stays idle).
    const listed = (await listSessions(rig.mcp)).map((s) => s.session_id)
    expect(listed).toHaveLength(21)
    expect(panes.filter((p) => !listed.includes(p.id))).toEqual([])
    const commandFor = (i: number) => `printf 'unique-%s-%s\\n' ${i} ${i * 7}; (exit ${100 + i})`
    const marks = panes.map((p) => p.files.recorder.mark())
    const results = await Promise.all(
      panes.map((p, i) =>
        runCommand(rig.mcp, { session_id: p.id, command: commandFor(i), timeout_seconds: 60 })
      )
    )
    results.forEach((result, i) => {
      expect(result.data, JSON.stringify(result.data)).toMatchObject({
        session_id: panes[i]!.id,
        status: "completed",
        exit_code: 100 + i,
        output: `unique-${i}-${i * 7}`
      })
      expect(panes[i]!.files.recorder.textSince(marks[i]!)).toBe(`${commandFor(i)}\r`)
    })
    expect(new Set(results.map((r) => r.data.request_id)).size).toBe(panes.length)
  })

  it("reads and lists alongside 20 concurrent commands type nothing extra", async () => {
    const marks = panes.map((p) => p.files.recorder.mark())
    const runs = panes.map((p, i) =>
      runCommand(rig.mcp, { session_id: p.id, command: `echo again-${i}`, timeout_seconds: 60 })
    )
    const reads = panes.flatMap((p) => [
      rig.mcp.client.callTool({ name: "read_terminal", arguments: { session_id: p.id, max_lines: 20 } }),
      rig.mcp.client.callTool({ name: "list_sessions", arguments: {} })
    ])
    const [results] = await Promise.all([Promise.all(runs), Promise.all(reads)])
    results.forEach((result, i) => {
      expect(result.data).toMatchObject({ status: "completed", exit_code: 0, output: `again-${i}` })
      expect(panes[i]!.files.recorder.textSince(marks[i]!)).toBe(`echo again-${i}\r`)
    })
  })
})
