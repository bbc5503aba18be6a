/**
 * Lives of panes and servers under a watch: a timed-out command picked up later, a pane killed or
 * dying mid-wait (session_lost, long before the timeout), a server killed mid-wait and then
 * restarted on the same socket (typed errors, old ids not found, new ids work, nothing crashes).
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { request, run, TmuxWorld, waitFor } from "../support/tmux/TmuxWorld.js"

describe("tmux pane and server lives", () => {
  const world = new TmuxWorld()
  const t = world.started()

  const freshPane = async () => {
    const pane = await world.freshPane()
    return { pane, id: await world.readyPane(t.backend, pane) }
  }

  it("times out without cancelling, and get_command_result picks the outcome up later", async () => {
    const { id } = await freshPane()
    const first = await run(t.runner.run(request(id, "sleep 0.8; echo late", { timeoutSeconds: 0.2 })))
    expect(first).toMatchObject({ status: "timed_out", sent: true })
    const later = await run(t.runner.result(first.request_id, 10))
    expect(later).toMatchObject({ status: "completed", exit_code: 0, output: "late" })
  })

  it("reports session_lost when the pane is killed mid-wait, long before the timeout", async () => {
    const { pane, id } = await freshPane()
    const started = await run(t.runner.run(request(id, "sleep 60", { waitForCompletion: false })))
    expect(started.status).toBe("submitted")
    await world.until(t.backend, id, "busy")
    world.tmux("kill-pane", "-t", pane)
    const result = await run(t.runner.result(started.request_id, 30))
    expect(result).toMatchObject({ status: "session_lost", sent: true })
  })

  it("reports session_lost when the pane's whole session is killed mid-wait (its control client exits)", async () => {
    const pane = world.newSession("doomed")
    await world.waitShell(pane)
    const id = await world.readyPane(t.backend, pane)
    const started = await run(t.runner.run(request(id, "sleep 60", { waitForCompletion: false })))
    await world.until(t.backend, id, "busy")
    world.tmux("kill-session", "-t", "doomed")
    expect(await run(t.runner.result(started.request_id, 30))).toMatchObject({
      status: "session_lost",
      sent: true
    })
    expect(await run(Effect.flip(t.backend.terminal.readiness(id)))).toMatchObject({
      code: "session_not_found"
    })
  })

  it("reports session_lost when the pane's process dies mid-wait (remain-on-exit: tmux says nothing)", async () => {
    const { pane, id } = await freshPane()
    world.tmux("set-window-option", "-t", pane, "remain-on-exit", "on")
    const result = await run(t.runner.run(request(id, "sleep 0.2; kill -9 $$", { timeoutSeconds: 30 })))
    expect(result).toMatchObject({ status: "session_lost", sent: true })
    expect(await run(t.backend.terminal.readiness(id))).toBe("interactive")
  })

  it("survives the server being killed mid-wait and restarted on the same socket", async () => {
    const { id } = await freshPane()
    const started = await run(t.runner.run(request(id, "sleep 60", { waitForCompletion: false })))
    await world.until(t.backend, id, "busy")
    await world.killServer()
    const lost = await run(t.runner.result(started.request_id, 30))
    expect(lost).toMatchObject({ sent: true, status: "error" })
    await waitFor("the socket to go", async () =>
      (await run(t.backend.terminal.listSessions)).length === 0 ? true : undefined
    )
    expect(await run(Effect.flip(t.backend.terminal.readiness(id)))).toMatchObject({
      code: "tmux_unavailable"
    })

    // Calls while no server runs must not start one (tmux's attach-session would).
    expect(await run(t.backend.terminal.listSessions)).toEqual([])
    expect(() => world.tmux("list-sessions")).toThrow(/no server running/)
    const pane = world.newSession("again")
    await world.waitShell(pane)
    expect(await run(Effect.flip(t.backend.terminal.readiness(id)))).toMatchObject({
      code: "session_not_found"
    })
    const again = await world.readyPane(t.backend, pane)
    expect(again).not.toBe(id)
    expect(await run(t.runner.run(request(again, "echo back")))).toMatchObject({
      status: "completed",
      output: "back"
    })
    const stale = await run(t.runner.run(request(id, "echo SHOULD-NOT-RUN")))
    expect(stale).toMatchObject({ status: "rejected", sent: false, error_code: "session_not_found" })
    expect(world.lines(pane)).toEqual(["echo back"])
  })
})
