/**
 * End to end over real tmux, malformed arguments and malformed tmux ids: each is refused with its
 * stable code, the recorders prove nothing reached any pane, and the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCommand } from "../support/E2eHelpers.js"
import { call } from "../support/FakeIterm2Backend.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig
let pane: RigPane

beforeAll(async () => {
  rig = await openTmuxRig()
  pane = await rig.pane()
})

afterAll(async () => {
  await rig?.close()
})

const CMD = "tp_argv BAD-INPUT-MUST-NOT-RUN"

describe("bad arguments reach no pane", () => {
  const invalid: ReadonlyArray<readonly [string, () => Record<string, unknown>]> = [
    ["missing session_id", () => ({ command: CMD })],
    ["blank session_id", () => ({ session_id: " ", command: CMD })],
    ["number as session_id", () => ({ session_id: 0, command: CMD })],
    ["newline in command", () => ({ session_id: pane.id, command: `${CMD}\nid` })],
    ["CR in command", () => ({ session_id: pane.id, command: `${CMD}\r` })],
    ["TAB in command", () => ({ session_id: pane.id, command: `echo\t${CMD}` })],
    ["ESC in command", () => ({ session_id: pane.id, command: `${CMD}\u001b[201~` })],
    ["NUL in command", () => ({ session_id: pane.id, command: `${CMD}\u0000` })],
    ["empty command", () => ({ session_id: pane.id, command: "" })],
    ["8193 code points", () => ({ session_id: pane.id, command: "x".repeat(8193) })],
    ["timeout_seconds 0", () => ({ session_id: pane.id, command: CMD, timeout_seconds: 0 })]
  ]

  it.each(invalid)("%s is invalid_request", async (_, args) => {
    const result = await expectNothingReached(rig.worlds, () => call(rig.mcp, "run_command", args()))
    expect(result.isError).toBe(true)
    expect(result.data).toMatchObject({ error_code: "invalid_request" })
  })

  it("malformed tmux ids are session_not_found for every tool", async () => {
    const s = rig.world.socket
    const ids = [
      "tmux:",
      "tmux:%0",
      `tmux:${s}`,
      `tmux:${s}:`,
      `tmux:${s}:1.2`,
      `tmux:${s}:1.2:%`,
      `tmux:${s}:1.2:%-1`,
      `tmux:${s}:1.2:%0x1`,
      `tmux:${s}:-1.2:%0`,
      `tmux:${s}:a.b:%0`,
      `tmux:${s}:99999999999999999999.1:%0`,
      `tmux:relative/sock:1.2:%0`,
      `tmux:${s}:1.2:%0:extra`,
      "TMUX:/tmp/x:1.2:%0"
    ]
    for (const id of ids) {
      const ran = await expectNothingReached(rig.worlds, () =>
        runCommand(rig.mcp, { session_id: id, command: CMD })
      )
      expect(ran.data, id).toMatchObject({ status: "rejected", sent: false, error_code: "session_not_found" })
      const read = await call(rig.mcp, "read_terminal", { session_id: id })
      expect(read.data, id).toMatchObject({ error_code: "session_not_found" })
    }
  })

  it("still serves the real pane afterwards", async () => {
    const result = await runCommand(rig.mcp, { session_id: pane.id, command: "tp_argv fine" })
    expect(result.data).toMatchObject({ status: "completed", exit_code: 0 })
    expect(pane.files.argv()).toEqual(["fine"])
  })
})
