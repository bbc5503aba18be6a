/**
 * End to end on the fake iTerm2 (real bash in PTYs): interrupt_command stops exactly the command
 * TermPilot started — one ETX, to that session only, broadcast suppressed — and refuses, sending
 * nothing, whatever it cannot verify: an unknown request, a command that never started, a command
 * already over, a session that closed. The fake's ledger is every SendText iTerm2 received.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { toolRegistry } from "../../src/tools/Registry.js"
import {
  commandResult,
  expectNothingSent,
  interruptCommand,
  runCommand,
  waitForReadiness,
  waitForStart
} from "../support/E2eHelpers.js"
import { call, type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

let rig: FakeIterm2Rig

beforeAll(async () => {
  rig = await openFakeIterm2Rig()
})

afterAll(async () => {
  await rig?.close()
})

/** A new session running `command` (sent by TermPilot, not waited for), its shell busy with it. */
const started = async (command: string) => {
  const { world, mcp } = rig
  const s = await world.createWindow()
  const sent = await runCommand(mcp, { session_id: s.sessionId, command, wait_for_completion: false })
  expect(sent.data).toMatchObject({ status: "submitted", sent: true })
  await waitForReadiness(mcp, s.sessionId, "busy")
  // The start mark comes before the program runs: let `sleep` own the terminal before interrupting.
  if (command.startsWith("sleep ")) await world.waitFor(s.sessionId, (shell) => shell.jobName === "sleep")
  await waitForStart(mcp, sent.data.request_id)
  return { sessionId: s.sessionId, requestId: sent.data.request_id, mark: world.ledger.size }
}

describe("interrupt_command on iTerm2", () => {
  it("stops `sleep 100` with one ETX to that session only: the command ends with exit 130", async () => {
    const { world, mcp } = rig
    const bystander = await world.createWindow()
    const { sessionId, requestId, mark } = await started("sleep 100")

    const answer = await interruptCommand(mcp, { request_id: requestId, wait_seconds: 10 })
    expect(answer.isError, JSON.stringify(answer.data)).toBe(false)
    expect(answer.data).toMatchObject({
      request_id: requestId,
      session_id: sessionId,
      command: "sleep 100",
      status: "completed",
      exit_code: 130,
      sent: true,
      interrupt_sent: true
    })
    expect(world.ledger.all().slice(mark)).toEqual([
      expect.objectContaining({ session: sessionId, text: "\u0003", suppress_broadcast: true })
    ])
    expect(world.ledger.forSession(bystander.sessionId)).toEqual([])
    // The runner's own record agrees, and the session takes commands again.
    const picked = await commandResult(mcp, { request_id: requestId })
    expect(picked.data).toMatchObject({ status: "completed", exit_code: 130 })
    await waitForReadiness(mcp, sessionId, "ready")
    const next = await runCommand(mcp, { session_id: sessionId, command: "echo again" })
    expect(next.data).toMatchObject({ status: "completed", exit_code: 0, output: "again" })
  })

  it("a program that ignores SIGINT is still_running after one ETX; TermPilot never escalates", async () => {
    const { world, mcp } = rig
    // Interrupt only once the trap is set: an ETX before that would stop the program (bash starts it
    // a moment after reporting the command's start).
    const { sessionId, requestId, mark } = await started(`bash -c 'trap "" INT; echo armed; sleep 100'`)
    await world.waitFor(sessionId, () => /^armed$/m.test(world.screenText(sessionId)))

    const answer = await interruptCommand(mcp, { request_id: requestId, wait_seconds: 1 })
    expect(answer.isError, JSON.stringify(answer.data)).toBe(false)
    expect(answer.data).toMatchObject({
      request_id: requestId,
      status: "still_running",
      interrupt_sent: true,
      exit_code: null,
      finished_at: null
    })
    expect(answer.data.message).toMatch(/interrupt/i)
    // Waiting longer changes nothing and sends nothing more.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(world.ledger.all().slice(mark)).toEqual([
      expect.objectContaining({ session: sessionId, text: "\u0003", suppress_broadcast: true })
    ])
    expect((await commandResult(mcp, { request_id: requestId })).data).toMatchObject({ exit_code: null })
    await waitForReadiness(mcp, sessionId, "busy")
  })

  it("a command that already finished: nothing sent, its final result returned", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    const done = await runCommand(mcp, { session_id: s.sessionId, command: "echo over; (exit 4)" })
    expect(done.data).toMatchObject({ status: "completed", exit_code: 4 })
    const answer = await expectNothingSent(world, () =>
      interruptCommand(mcp, { request_id: done.data.request_id, wait_seconds: 1 })
    )
    expect(answer.isError).toBe(false)
    expect(answer.data).toMatchObject({
      request_id: done.data.request_id,
      status: "completed",
      exit_code: 4,
      output: "over",
      interrupt_sent: false
    })
  })

  it("an unknown request id is request_not_found, nothing sent", async () => {
    const { world, mcp } = rig
    const answer = await expectNothingSent(world, () =>
      interruptCommand(mcp, { request_id: "0123456789abcdef0123456789abcdef" })
    )
    expect(answer.isError).toBe(true)
    expect(answer.data).toMatchObject({ error_code: "request_not_found" })
  })

  it("a submitted command the shell never started (an open quote) is command_not_running, nothing sent", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    const sent = await runCommand(mcp, {
      session_id: s.sessionId,
      command: "echo 'never closed",
      wait_for_completion: false
    })
    expect(sent.data).toMatchObject({ status: "submitted", sent: true })
    // bash waits for the closing quote at its continuation prompt: no command-start ever comes.
    await world.waitFor(s.sessionId, () => world.screenText(s.sessionId).includes("\n> "))
    const answer = await expectNothingSent(world, () =>
      interruptCommand(mcp, { request_id: sent.data.request_id, wait_seconds: 1 })
    )
    expect(answer.isError).toBe(true)
    expect(answer.data).toMatchObject({ error_code: "command_not_running" })
  })

  it("a session closed meanwhile: nothing sent, the result says session_lost", async () => {
    const { world, mcp } = rig
    const { sessionId, requestId } = await started("sleep 100")
    await world.closeSession(sessionId)
    const lost = await commandResult(mcp, { request_id: requestId, wait_seconds: 10 })
    expect(lost.data).toMatchObject({ status: "session_lost" })
    const answer = await expectNothingSent(world, () =>
      interruptCommand(mcp, { request_id: requestId, wait_seconds: 1 })
    )
    expect(answer.data).toMatchObject({ status: "session_lost", interrupt_sent: false })
  })

  it("bad arguments are invalid_request before anything is looked at", async () => {
    const { world, mcp } = rig
    for (const args of [
      {},
      { request_id: "" },
      { request_id: "x", wait_seconds: 61 },
      { request_id: "x", wait_seconds: -1 }
    ]) {
      const answer = await expectNothingSent(world, () => call(mcp, "interrupt_command", args))
      expect(answer.isError).toBe(true)
      expect(answer.data).toMatchObject({ error_code: "invalid_request" })
    }
  })
})

describe("interrupt_command in read-only mode", () => {
  it("is not listed and cannot be called", async () => {
    const ro = await openFakeIterm2Rig({
      config: { readOnly: true },
      server: { tools: toolRegistry({ readOnly: true }) }
    })
    try {
      const names = (await ro.mcp.client.listTools()).tools.map((t) => t.name)
      expect(names).not.toContain("interrupt_command")
      expect(names).not.toContain("run_command")
      const refused = await expectNothingSent(ro.world, () =>
        ro.mcp.client
          .callTool({
            name: "interrupt_command",
            arguments: { request_id: "0123456789abcdef0123456789abcdef" }
          })
          .then(
            (r) => ({ isError: r.isError === true, text: JSON.stringify(r) }),
            (e: unknown) => ({ isError: true, text: String(e) })
          )
      )
      expect(refused.isError).toBe(true)
      expect(refused.text).toMatch(/unknown tool/i)
    } finally {
      await ro.close()
    }
  })
})
