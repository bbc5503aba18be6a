/**
 * End to end over real tmux, 20 panes (4 windows × 5 panes) and 20 concurrent run_command calls:
 * each gets its own output and exit code, and each pane's recorder holds exactly its own command.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listSessions, runCommand } from "../support/E2eHelpers.js"
import { openTmuxRig, type RigPane, settle, type TmuxRig } from "../support/tmuxWorld/TmuxRig.js"

let rig: TmuxRig
const panes: Array<RigPane> = []

beforeAll(async () => {
  rig = await openTmuxRig()
  for (let w = 0; w < 4; w++) {
    const first = await rig.pane({ name: `w${w}` })
    panes.push(first)
    for (let p = 1; p < 5; p++) {
      const split = await rig.world.split(first)
      await rig.world.tmux("select-layout", "-t", first.paneId, "tiled")
      const pane = { ...split, id: await rig.world.sessionId(split) }
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
    expect((await listSessions(rig.mcp)).map((s) => s.session_id).sort()).toEqual(
      panes.map((p) => p.id).sort()
    )
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
})
