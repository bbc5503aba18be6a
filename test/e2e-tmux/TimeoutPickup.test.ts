/**
 * End to end over real tmux, long commands: a timeout stops the wait but not the command, a
 * second command meanwhile is refused (nothing reaches the pane), get_command_result picks up the
 * real outcome, and wait_for_completion false submits and returns.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandResult, expectRejected, runCommand } from "../support/E2eHelpers.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig

beforeAll(async () => {
  rig = await openTmuxRig()
})

afterAll(async () => {
  await rig?.close()
})

describe("timeout, then get_command_result", () => {
  it("times out without cancelling, refuses a second command, then reports the real outcome", async () => {
    const pane = await rig.pane()
    const command = "sleep 2; echo slow-done; (exit 3)"
    const mark = pane.files.recorder.mark()
    const first = await runCommand(rig.mcp, { session_id: pane.id, command, timeout_seconds: 0.5 })
    expect(first.isError).toBe(false)
    expect(first.data).toMatchObject({
      session_id: pane.id,
      command,
      status: "timed_out",
      sent: true,
      exit_code: null,
      output: null,
      error_code: "command_timeout"
    })
    const requestId = first.data.request_id

    // (No fence here: its byte would be echoed into the running command's output.)
    const second = await runCommand(rig.mcp, { session_id: pane.id, command: "tp_argv second" })
    expectRejected(second, "command_in_flight")

    const picked = await commandResult(rig.mcp, { request_id: requestId, wait_seconds: 15 })
    expect(picked.data).toMatchObject({
      request_id: requestId,
      status: "completed",
      sent: true,
      exit_code: 3,
      output: "slow-done",
      truncated: false
    })
    // Exactly one command reached the pane in all this: the second never did.
    expect(pane.files.recorder.textSince(mark)).toBe(`${command}\r`)
    expect(pane.files.argv()).toBeNull()
    const next = await runCommand(rig.mcp, { session_id: pane.id, command: "echo after; (exit 4)" })
    expect(next.data).toMatchObject({ status: "completed", exit_code: 4, output: "after" })
  })

  it("wait_for_completion false returns submitted; get_command_result picks the outcome up", async () => {
    const pane = await rig.pane()
    const command = "sleep 1; printf 'bg-%s\\n' one two; (exit 5)"
    const submitted = await runCommand(rig.mcp, { session_id: pane.id, command, wait_for_completion: false })
    expect(submitted.data).toMatchObject({ status: "submitted", sent: true, exit_code: null, output: null })
    const picked = await commandResult(rig.mcp, { request_id: submitted.data.request_id, wait_seconds: 15 })
    expect(picked.data).toMatchObject({ status: "completed", exit_code: 5, output: "bg-one\nbg-two" })
  })
})
