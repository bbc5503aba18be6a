/**
 * End to end on the fake iTerm2: progress notifications while TermPilot waits on a command (about
 * one a second, increasing, naming the request_id, none after the answer) and the client's
 * cancellation (notifications/cancelled): the wait stops at once, nothing more is sent, and the
 * command's result stays available to get_command_result.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  auditLines,
  callWithProgress,
  commandResult,
  expectSteadyProgress,
  requestIdOf,
  runCommand,
  waitForReadiness
} from "../support/E2eHelpers.js"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"
import { waitUntil } from "../support/tmux/Recorder.js"

let rig: FakeIterm2Rig
let dir: string
let auditPath: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tp-progress-"))
  auditPath = join(dir, "audit.jsonl")
  rig = await openFakeIterm2Rig({ auditPath })
})

afterAll(async () => {
  await rig?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The audit trail's lines for one request id (written when a tool call answers). */
const auditFor = (requestId: string, tool: string) =>
  auditLines(auditPath).filter((line) => line.request_id === requestId && line.tool === tool)

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("progress while waiting", () => {
  it("a 5 s command gives 3 to 7 notifications, increasing, naming the request, none after the answer", async () => {
    const s = await rig.world.createWindow()
    await expectSteadyProgress(rig.mcp, s.sessionId)
  })

  it("get_command_result with wait_seconds reports progress too; a call without a token gets none", async () => {
    const s = await rig.world.createWindow()
    const sent = await runCommand(rig.mcp, {
      session_id: s.sessionId,
      command: "sleep 3; echo late",
      wait_for_completion: false
    })
    const call = callWithProgress(rig.mcp, "get_command_result", {
      request_id: sent.data.request_id,
      wait_seconds: 10
    })
    const answer = await call.answer
    expect(answer.data).toMatchObject({ status: "completed", output: "late" })
    expect(call.progress.length).toBeGreaterThanOrEqual(1)
    for (const p of call.progress) expect(requestIdOf(p.message)).toBe(sent.data.request_id)

    // The plain client call of the harness sends no progressToken: it just answers.
    const plain = await runCommand(rig.mcp, { session_id: s.sessionId, command: "sleep 1.5; echo quiet" })
    expect(plain.data).toMatchObject({ status: "completed", output: "quiet" })
  })
})

describe("cancellation", () => {
  it("a cancelled run_command stops waiting within 0.5 s; the result is still there for get_command_result", async () => {
    const s = await rig.world.createWindow()
    const before = rig.world.ledger.size
    const abort = new AbortController()
    const call = callWithProgress(
      rig.mcp,
      "run_command",
      { session_id: s.sessionId, command: "sleep 3; echo finished-anyway", timeout_seconds: 60 },
      abort.signal
    )
    const rejected = call.answer.then(
      () => "answered",
      () => "rejected"
    )
    await waitUntil("a first progress notification", () => call.progress.length > 0, 10_000)
    const requestId = requestIdOf(call.progress[0]!.message)
    expect(requestId).toBeDefined()
    const cancelledAt = Date.now()
    abort.abort("the user changed their mind")
    expect(await rejected).toBe("rejected")
    // The server stopped waiting: its handler answered (and the audit trail recorded it) at once.
    await waitUntil("the run_command audit line", () => auditFor(requestId!, "run_command").length > 0, 5_000)
    const [line] = auditFor(requestId!, "run_command")
    expect(Date.parse(String(line?.time)) - cancelledAt).toBeLessThan(500)
    expect(line).toMatchObject({ sent: true })
    const progressAtCancel = call.progress.length

    const picked = await commandResult(rig.mcp, { request_id: requestId, wait_seconds: 10 })
    expect(picked.data).toMatchObject({ status: "completed", exit_code: 0, output: "finished-anyway" })
    // The command was typed once; cancelling sent nothing more, and no progress came after it.
    expect(rig.world.ledger.all().slice(before)).toEqual([
      expect.objectContaining({ session: s.sessionId, text: "sleep 3; echo finished-anyway\r" })
    ])
    expect(call.progress.length).toBe(progressAtCancel)
  })

  it("a cancelled get_command_result wait stops at once and changes nothing", async () => {
    const s = await rig.world.createWindow()
    const sent = await runCommand(rig.mcp, {
      session_id: s.sessionId,
      command: "sleep 2; echo still-here",
      wait_for_completion: false
    })
    const abort = new AbortController()
    const call = callWithProgress(
      rig.mcp,
      "get_command_result",
      { request_id: sent.data.request_id, wait_seconds: 30 },
      abort.signal
    )
    const rejected = call.answer.then(
      () => "answered",
      () => "rejected"
    )
    await settle(300)
    abort.abort()
    expect(await rejected).toBe("rejected")
    const done = await commandResult(rig.mcp, { request_id: sent.data.request_id, wait_seconds: 10 })
    expect(done.data).toMatchObject({ status: "completed", output: "still-here" })
    await waitForReadiness(rig.mcp, s.sessionId, "ready")
  })
})
