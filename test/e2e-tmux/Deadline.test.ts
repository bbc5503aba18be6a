/**
 * End to end over real tmux, the server alive but not answering (stopped with SIGSTOP, by the pid
 * of the server this test started): every tool call answers by its deadline with
 * `deadline_exceeded` — run_command with `sent: false` — before tmux's own command timeout, and
 * once the server runs again the pane received nothing and works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCommand } from "../support/E2eHelpers.js"
import { call } from "../support/FakeIterm2Backend.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig

beforeAll(async () => {
  // The deadline (1 s) is shorter than tmux's command timeout (5 s): which one answered shows in the code.
  rig = await openTmuxRig({ config: { toolDeadlineMs: 1_000 } })
})

afterAll(async () => {
  await rig?.close()
})

describe("tmux server not answering", () => {
  it("answers by the deadline, sends nothing, and recovers", async () => {
    const { world, mcp } = rig
    const pane = await rig.pane()
    const serverPid = Number(await world.format(pane.paneId, "#{pid}"))
    await expectNothingReached([world], async () => {
      process.kill(serverPid, "SIGSTOP")
      try {
        const ran = await runCommand(mcp, { session_id: pane.id, command: "tp_argv MUST-NOT-RUN" })
        expect(ran.data).toMatchObject({ status: "error", sent: false, error_code: "deadline_exceeded" })
        const read = await call(mcp, "read_terminal", { session_id: pane.id })
        expect(read.data).toMatchObject({ error_code: "deadline_exceeded" })
      } finally {
        process.kill(serverPid, "SIGCONT")
      }
    })
    const ok = await runCommand(mcp, { session_id: pane.id, command: "echo awake" })
    expect(ok.data).toMatchObject({ status: "completed", exit_code: 0, output: "awake" })
  })
})
