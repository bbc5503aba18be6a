/**
 * Lives of panes and servers under a watch: a timed-out command picked up later, a pane killed or
 * dying mid-wait (session_lost, long before the timeout), a server killed mid-wait and then
 * restarted on the same socket (typed errors, old ids not found, new ids work, nothing crashes).
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CommandRunner } from "../../src/services/CommandRunner.js"
import { RecordedBackend, request, run } from "../support/tmux/RecordedBackend.js"
import { waitUntil } from "../support/tmux/Recorder.js"

describe("tmux pane and server lives", () => {
  const rig = new RecordedBackend()
  const world = rig.world
  let runner: CommandRunner["Service"]

  beforeAll(async () => {
    await rig.open()
    runner = await rig.runner()
  })
  afterAll(() => rig.close())

  const freshPane = async () => {
    const pane = await rig.pane()
    return { pane, id: (await rig.ready(pane)).id }
  }

  it("times out without cancelling, and get_command_result picks the outcome up later", async () => {
    const { id } = await freshPane()
    const first = await run(runner.run(request(id, "sleep 0.8; echo late", { timeoutSeconds: 0.2 })))
    expect(first).toMatchObject({ status: "timed_out", sent: true })
    const later = await run(runner.result(first.request_id, 10))
    expect(later).toMatchObject({ status: "completed", exit_code: 0, output: "late" })
  })

  it("reports session_lost when the pane is killed mid-wait, long before the timeout", async () => {
    const { pane, id } = await freshPane()
    const started = await run(runner.run(request(id, "sleep 60", { waitForCompletion: false })))
    expect(started.status).toBe("submitted")
    await rig.until(id, "busy")
    await world.tmux("kill-pane", "-t", pane.paneId)
    const result = await run(runner.result(started.request_id, 30))
    expect(result).toMatchObject({ status: "session_lost", sent: true })
  })

  it("reports session_lost when the pane's whole session is killed mid-wait (its control client exits)", async () => {
    const pane = await world.newSession("doomed")
    const { id } = await rig.ready(pane)
    const started = await run(runner.run(request(id, "sleep 60", { waitForCompletion: false })))
    await rig.until(id, "busy")
    await world.tmux("kill-session", "-t", "doomed")
    expect(await run(runner.result(started.request_id, 30))).toMatchObject({
      status: "session_lost",
      sent: true
    })
    expect(await run(Effect.flip(rig.backend.terminal.readiness(id)))).toMatchObject({
      code: "session_not_found"
    })
  })

  it("reports session_lost when the pane's process dies mid-wait (remain-on-exit: tmux says nothing)", async () => {
    const { pane, id } = await freshPane()
    await world.tmux("set-window-option", "-t", pane.paneId, "remain-on-exit", "on")
    const result = await run(runner.run(request(id, "sleep 0.2; kill -9 $$", { timeoutSeconds: 30 })))
    expect(result).toMatchObject({ status: "session_lost", sent: true })
    expect(await run(rig.backend.terminal.readiness(id))).toBe("interactive")
  })

  it("survives the server being killed mid-wait and restarted on the same socket", async () => {
    const { id } = await freshPane()
    const started = await run(runner.run(request(id, "sleep 60", { waitForCompletion: false })))
    await rig.until(id, "busy")
    await world.killServer()
    const lost = await run(runner.result(started.request_id, 30))
    expect(lost).toMatchObject({ sent: true, status: "error" })
    await waitUntil(
      "the socket to go",
      async () => (await run(rig.backend.terminal.listSessions)).length === 0
    )
    expect(await run(Effect.flip(rig.backend.terminal.readiness(id)))).toMatchObject({
      code: "tmux_unavailable"
    })

    // Calls while no server runs must not start one (tmux's attach-session would).
    expect(await run(rig.backend.terminal.listSessions)).toEqual([])
    await expect(world.tmux("list-sessions")).rejects.toThrow(/no server running/)
    const pane = await world.newSession("again")
    expect(await run(Effect.flip(rig.backend.terminal.readiness(id)))).toMatchObject({
      code: "session_not_found"
    })
    const { id: again } = await rig.ready(pane)
    expect(again).not.toBe(id)
    expect(await run(runner.run(request(again, "echo back")))).toMatchObject({
      status: "completed",
      output: "back"
    })
    const stale = await run(runner.run(request(id, "echo SHOULD-NOT-RUN")))
    expect(stale).toMatchObject({ status: "rejected", sent: false, error_code: "session_not_found" })
    expect(pane.files.executed()).toEqual(["echo back"])
  })
})
