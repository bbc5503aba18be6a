/**
 * End to end over real tmux and real bash (with TermPilot's shell integration): wait_for_output's
 * contract (test/support/WaitForOutputChecks.ts), with the panes' `script -I` recorders proving
 * that no wait sent a byte to any pane.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"
import {
  expectCancelStopsQuickly,
  expectCommandEnded,
  expectMatchedAfterTwoSeconds,
  expectPathologicalPatternBounded,
  expectQuietAfterBurst,
  type WaitRig,
  waitForOutput
} from "../support/WaitForOutputChecks.js"

let rig: TmuxRig
let dir: string
let auditPath: string
let waits: WaitRig

/** Waits until the pane of `sessionId` received `command` and Enter (typed by TermPilot or the person). */
const keysArrived = async (sessionId: string, command: string): Promise<void> => {
  const ids = await Promise.all(rig.world.panes.map((p) => rig.world.sessionId(p)))
  const pane = rig.world.panes[ids.indexOf(sessionId)]
  if (pane === undefined) throw new Error(`no pane for ${sessionId}`)
  await waitUntil(`${sessionId} to receive ${JSON.stringify(command)} and Enter`, () =>
    pane.files.recorder.textSince(0).endsWith(`${command}\r`)
  )
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tp-wait-tmux-"))
  auditPath = join(dir, "audit.jsonl")
  rig = await openTmuxRig({ auditPath })
  waits = {
    mcp: rig.mcp,
    nothingSent: (action) => expectNothingReached(rig.worlds, action, "wait_for_output"),
    typed: keysArrived
  }
})

afterAll(async () => {
  await rig?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe("wait_for_output on tmux", () => {
  it("a pattern printed after 2 s: matched after about 2 s, with the line", async () => {
    const pane = await rig.pane()
    await expectMatchedAfterTwoSeconds(waits, pane.id)
  })

  it("a burst, then silence: quiet", async () => {
    const pane = await rig.pane()
    await expectQuietAfterBurst(waits, pane.id)
  })

  it("the command ends: command_ended with its exit code", async () => {
    const pane = await rig.pane()
    await expectCommandEnded(waits, pane.id)
  })

  it("the client cancels: the wait stops within 0.5 s", async () => {
    const pane = await rig.pane()
    await expectCancelStopsQuickly(waits, pane.id, auditPath)
  })

  it("(a+)+$ on a long aaaa…b line answers within its bound", async () => {
    const pane = await rig.pane()
    await expectPathologicalPatternBounded(waits, pane.id)
  })

  it("a program the person started in the pane: its line matches, and its end is seen", async () => {
    const pane = await rig.pane()
    // Typed by the person (the test through tmux), not by TermPilot.
    const command = "sleep 1; echo server listening on :$((4000+80)); sleep 1; (exit 7)"
    await rig.world.tmux("send-keys", "-t", pane.paneId, "-l", command)
    await rig.world.tmux("send-keys", "-t", pane.paneId, "Enter")
    // The person's own keys must have reached the pane before the recorders are marked, or
    // their Enter, arriving late under load, would read as something the wait sent.
    await keysArrived(pane.id, command)
    const matched = await waits.nothingSent(() =>
      waitForOutput(rig.mcp, { session_id: pane.id, pattern: "listening on :4080", timeout_seconds: 20 })
    )
    expect(matched.data).toMatchObject({ stopped: "matched", matched_line: "server listening on :4080" })
    const ended = await waits.nothingSent(() =>
      waitForOutput(rig.mcp, { session_id: pane.id, since: matched.data.cursor, timeout_seconds: 20 })
    )
    expect(ended.data).toMatchObject({ stopped: "command_ended", exit_code: 7 })
  })
})
