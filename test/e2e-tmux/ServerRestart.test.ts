/**
 * End to end over real tmux, the server goes away and comes back on the same socket: calls for
 * its panes are typed errors (tmux_unavailable while nothing answers there, session_not_found
 * once a new server does), a wait in flight ends promptly, the new server's panes are picked up
 * on the next call, and the MCP server keeps serving throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listSessions, runCommand, waitForReadiness } from "../support/E2eHelpers.js"
import { call } from "../support/FakeIterm2Backend.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig

beforeAll(async () => {
  rig = await openTmuxRig()
})

afterAll(async () => {
  await rig?.close()
})

describe("tmux server killed and restarted", () => {
  it("typed errors while it is gone, its panes back under new ids after, no crash", async () => {
    const { world, mcp } = rig
    const old = await rig.pane()
    expect((await runCommand(mcp, { session_id: old.id, command: "echo before-kill" })).data).toMatchObject({
      status: "completed",
      output: "before-kill"
    })

    await world.killServer()
    const list = await call(mcp, "list_sessions")
    expect(list.isError, JSON.stringify(list.data)).toBe(false)
    expect(list.data.sessions).toEqual([])
    const ran = await runCommand(mcp, { session_id: old.id, command: "tp_argv MUST-NOT-RUN" })
    // Nothing answers there: an error (as for an unreachable iTerm2), and nothing was sent.
    expect(ran.data).toMatchObject({ status: "error", sent: false, error_code: "tmux_unavailable" })
    const read = await call(mcp, "read_terminal", { session_id: old.id })
    expect(read.data).toMatchObject({ error_code: "tmux_unavailable" })
    expect(old.files.argv()).toBeNull()

    // A new server on the same socket: the old id names a server that is gone.
    const fresh = await rig.pane({ session: "main" })
    expect((await listSessions(mcp)).map((s) => s.session_id)).toEqual([fresh.id])
    expect(fresh.id).not.toBe(old.id)
    const stale = await expectNothingReached(rig.worlds, () =>
      runCommand(mcp, { session_id: old.id, command: "tp_argv MUST-NOT-RUN" })
    )
    expect(stale.data).toMatchObject({ status: "rejected", sent: false, error_code: "session_not_found" })
    const ok = await runCommand(mcp, { session_id: fresh.id, command: "echo after-restart; (exit 6)" })
    expect(ok.data).toMatchObject({ status: "completed", exit_code: 6, output: "after-restart" })
  })

  it("a command in flight when the server dies ends promptly, as sent", async () => {
    const { world, mcp } = rig
    const pane = await rig.pane({ session: "doomed" })
    const started = Date.now()
    const pending = runCommand(mcp, { session_id: pane.id, command: "sleep 30", timeout_seconds: 25 })
    await waitForReadiness(mcp, pane.id, "busy")
    await world.killServer()
    const result = await pending
    expect(result.data.sent).toBe(true)
    expect(["session_lost", "error"]).toContain(result.data.status)
    if (result.data.status === "error") expect(result.data.error_code).toBe("tmux_unavailable")
    expect(Date.now() - started).toBeLessThan(20_000)
    // Still serving.
    const list = await call(mcp, "list_sessions")
    expect(list).toMatchObject({ isError: false, data: { sessions: [] } })
  })
})
