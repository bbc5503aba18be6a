/**
 * End to end, long commands: a timeout stops the wait but not the command, and get_command_result
 * picks the outcome up later; one command in flight per session; wait_for_completion false
 * submits and returns; unknown request ids are request_not_found.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandResult, expectNothingSent, expectRejected, runCommand } from "../support/E2eHelpers.js"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

let rig: FakeIterm2Rig

beforeAll(async () => {
  rig = await openFakeIterm2Rig()
})

afterAll(async () => {
  await rig?.close()
})

describe("timeout, then get_command_result", () => {
  it("times out without cancelling, refuses a second command meanwhile, then reports the real outcome", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    const command = "sleep 2; echo slow-done; (exit 3)"
    const before = world.ledger.size

    const first = await runCommand(mcp, { session_id: s.sessionId, command, timeout_seconds: 1 })
    expect(first.isError).toBe(false)
    expect(first.data).toMatchObject({
      session_id: s.sessionId,
      command,
      status: "timed_out",
      sent: true,
      exit_code: null,
      output: null,
      finished_at: null,
      duration_ms: null,
      error_code: "command_timeout"
    })
    const requestId = first.data.request_id
    expect(first.data.message).toContain(requestId)

    // Still running: the runner refuses a second command in that session and names the first.
    const second = await expectNothingSent(world, () =>
      runCommand(mcp, { session_id: s.sessionId, command: "echo second" })
    )
    expectRejected(second, "command_in_flight")
    expect(second.data.message).toContain(requestId)
    expect(second.data.request_id).not.toBe(requestId)

    const picked = await commandResult(mcp, { request_id: requestId, wait_seconds: 10 })
    expect(picked.isError).toBe(false)
    expect(picked.data).toMatchObject({
      request_id: requestId,
      session_id: s.sessionId,
      command,
      status: "completed",
      sent: true,
      exit_code: 3,
      output: "slow-done",
      truncated: false,
      output_line_count: 1,
      error_code: null
    })
    expect(picked.data.duration_ms).toBeGreaterThanOrEqual(2000)
    // The shell survived the subshell's exit, and exactly one command was ever typed.
    expect(world.ledger.all().slice(before)).toEqual([
      expect.objectContaining({ session: s.sessionId, text: `${command}\r` })
    ])

    // A finished result can be read again, unchanged, without waiting.
    const again = await commandResult(mcp, { request_id: requestId })
    expect(again.data).toEqual(picked.data)
    // The session is free again.
    const next = await runCommand(mcp, { session_id: s.sessionId, command: "echo after; (exit 4)" })
    expect(next.data).toMatchObject({ status: "completed", exit_code: 4, output: "after" })
  })

  it("get_command_result with a short wait returns the still-running state", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    const first = await runCommand(mcp, {
      session_id: s.sessionId,
      command: "sleep 2; echo late",
      timeout_seconds: 0.5
    })
    expect(first.data.status).toBe("timed_out")
    const early = await commandResult(mcp, { request_id: first.data.request_id, wait_seconds: 0.2 })
    expect(early.isError).toBe(false)
    // Still running: its output so far (issue 10), which is nothing yet.
    expect(early.data).toMatchObject({
      status: "timed_out",
      sent: true,
      exit_code: null,
      output: "",
      output_line_count: 0
    })
    const done = await commandResult(mcp, { request_id: first.data.request_id, wait_seconds: 10 })
    expect(done.data).toMatchObject({ status: "completed", exit_code: 0, output: "late" })
  })

  it("an unknown request id is request_not_found and reads nothing", async () => {
    const { world, mcp } = rig
    const result = await expectNothingSent(world, () =>
      commandResult(mcp, { request_id: "0123456789abcdef0123456789abcdef", wait_seconds: 1 })
    )
    expect(result.isError).toBe(true)
    expect(result.data).toMatchObject({ error_code: "request_not_found" })
  })
})

describe("wait_for_completion false", () => {
  it("returns submitted right after sending; get_command_result picks the outcome up", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    const command = "sleep 1; printf 'bg-%s\\n' one two; (exit 5)"
    const before = world.ledger.size

    const submitted = await runCommand(mcp, {
      session_id: s.sessionId,
      command,
      wait_for_completion: false
    })
    expect(submitted.isError).toBe(false)
    expect(submitted.data).toMatchObject({
      session_id: s.sessionId,
      command,
      status: "submitted",
      sent: true,
      exit_code: null,
      output: null,
      error_code: null
    })
    expect(world.ledger.all().slice(before)).toEqual([
      expect.objectContaining({ session: s.sessionId, text: `${command}\r` })
    ])

    const picked = await commandResult(mcp, { request_id: submitted.data.request_id, wait_seconds: 10 })
    expect(picked.data).toMatchObject({
      request_id: submitted.data.request_id,
      status: "completed",
      sent: true,
      exit_code: 5,
      output: "bg-one\nbg-two",
      output_line_count: 2
    })
    expect(world.ledger.size).toBe(before + 1)
  })
})
