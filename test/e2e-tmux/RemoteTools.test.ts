/**
 * "The same tools, the same guarantees" on a pane of a tmux server on another host (issue 24), over
 * real ssh to a loopback sshd WITH tmux (test/support/tmux/RemoteHosts.ts: its own HOME and
 * TMUX_TMPDIR, its default server started over that ssh in the remote hostname), named as an
 * alias of an ssh_config the test wrote, through the real MCP client with an elicitation handler
 * that accepts: list_sessions reports the remote pane's execution_readiness, hostname, cwd and
 * via; read_terminal's `since` cursor returns only what came after it; wait_for_output matches a
 * line a command prints there; run_command with a short timeout is timed_out and
 * get_command_result picks the real outcome up; interrupt_command stops a long command with one
 * ETX (exit 130); send_keys answers a `read -p` prompt after the accept. Every byte typed is
 * proven from the remote pane's own input recorder (`script -I`), and no wait sent any.
 */
import type { ElicitRequest } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseTmuxHost } from "../../src/domain/tmux/TmuxHost.js"
import {
  commandResult,
  interruptCommand,
  listed,
  readTerminal,
  runCommand,
  waitForReadiness
} from "../support/E2eHelpers.js"
import { call } from "../support/FakeIterm2Backend.js"
import { REMOTE_HOSTNAME } from "../support/Sshd.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { remotePane, startTmuxHost, stopTmuxHost, type TmuxHostFixture } from "../support/tmux/RemoteHosts.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"
import { waitForOutput } from "../support/WaitForOutputChecks.js"

const ALIAS = "tp-tools"
const ETX = "\u0003"
let rig: TmuxRig
let host: TmuxHostFixture
const asked: Array<string> = []

beforeAll(async () => {
  host = await startTmuxHost(ALIAS)
  rig = await openTmuxRig({
    hosts: [parseTmuxHost(ALIAS)!],
    sshConfig: host.sshd.sshConfig(ALIAS),
    elicit: async (request: ElicitRequest) => {
      asked.push(request.params.message)
      return { action: "accept" }
    }
  })
}, 60_000)

afterAll(async () => {
  await rig?.close()
  await stopTmuxHost(host)
})

const worlds = () => [rig.world, host.far]

describe("the same tools, the same guarantees, on a remote pane", () => {
  it("list_sessions: execution_readiness, the remote hostname, its cwd, via null", async () => {
    const pane = await remotePane(rig.mcp, host)
    expect(await listed(rig.mcp, pane.id)).toMatchObject({
      session_id: pane.id,
      backend: "tmux",
      execution_readiness: "ready",
      hostname: REMOTE_HOSTNAME,
      cwd: host.far.home,
      via: null
    })
    // A cd on the remote pane is reported as its cwd.
    const mark = pane.files.recorder.mark()
    const ran = await runCommand(rig.mcp, { session_id: pane.id, command: "cd /tmp", timeout_seconds: 20 })
    expect(ran.data).toMatchObject({ status: "completed", exit_code: 0, sent: true })
    expect(pane.files.recorder.textSince(mark)).toBe("cd /tmp\r")
    await expect
      .poll(async () => (await listed(rig.mcp, pane.id)).cwd, { timeout: 10_000, interval: 200 })
      .toBe("/tmp")
    expect((await listed(rig.mcp, pane.id)).hostname).toBe(REMOTE_HOSTNAME)
  })

  it("read_terminal since a cursor: only the lines written after it, and reading sends nothing", async () => {
    const pane = await remotePane(rig.mcp, host)
    const before = await runCommand(rig.mcp, { session_id: pane.id, command: "echo BEFORE-CURSOR" })
    expect(before.data).toMatchObject({ status: "completed", exit_code: 0, output: "BEFORE-CURSOR" })
    const first = await expectNothingReached(
      worlds(),
      () => readTerminal(rig.mcp, { session_id: pane.id, max_lines: 20 }),
      "read_terminal"
    )
    expect(first.isError, JSON.stringify(first.data)).toBe(false)
    const mark = pane.files.recorder.mark()
    const command = "seq -f 'far-%g' 1 30"
    const ran = await runCommand(rig.mcp, { session_id: pane.id, command, timeout_seconds: 20 })
    expect(ran.data).toMatchObject({ status: "completed", exit_code: 0 })
    expect(pane.files.recorder.textSince(mark)).toBe(`${command}\r`)
    const next = await readTerminal(rig.mcp, { session_id: pane.id, since: first.data.cursor })
    expect(next.isError, JSON.stringify(next.data)).toBe(false)
    expect(next.data.cursor_lost).toBe(false)
    const lines = next.data.content.split("\n")
    const rows = Array.from({ length: 30 }, (_, i) => `far-${i + 1}`)
    // The command line as echoed, its 30 rows, then the next prompt: nothing from before the cursor.
    expect(lines.filter((l) => l.startsWith("far-"))).toEqual(rows)
    expect(lines[0]).toContain(command)
    expect(next.data.content).not.toContain("BEFORE-CURSOR")
    const idle = await readTerminal(rig.mcp, { session_id: pane.id, since: next.data.cursor })
    expect(idle.data).toMatchObject({ content: "", line_count: 0, cursor_lost: false })
  })

  it("wait_for_output: a pattern printed by a command on the remote pane, nothing sent by the wait", async () => {
    const pane = await remotePane(rig.mcp, host)
    const mark = pane.files.recorder.mark()
    const command = "sleep 1.5; echo FAR-READY-$((6*7)) there; sleep 30"
    const sent = await runCommand(rig.mcp, { session_id: pane.id, command, wait_for_completion: false })
    expect(sent.data).toMatchObject({ status: "submitted", sent: true })
    await host.far.waitForScreen(pane, (screen) => screen.includes("sleep 30"))
    expect(pane.files.recorder.textSince(mark)).toBe(`${command}\r`)
    const { data, tookMs } = await expectNothingReached(
      worlds(),
      () => waitForOutput(rig.mcp, { session_id: pane.id, pattern: "FAR-READY-42", timeout_seconds: 20 }),
      "wait_for_output"
    )
    expect(data).toMatchObject({ stopped: "matched", matched_line: "FAR-READY-42 there" })
    expect(tookMs).toBeLessThan(10_000)
    const stopMark = pane.files.recorder.mark()
    const stopped = await interruptCommand(rig.mcp, { request_id: sent.data.request_id, wait_seconds: 10 })
    expect(stopped.data).toMatchObject({ status: "completed", exit_code: 130 })
    expect(JSON.stringify(pane.files.recorder.textSince(stopMark))).toBe(JSON.stringify(ETX))
  })

  it("run_command times out on the remote pane; get_command_result picks up the real outcome", async () => {
    const pane = await remotePane(rig.mcp, host)
    const command = "sleep 2; echo far-slow-done; (exit 3)"
    const mark = pane.files.recorder.mark()
    const first = await runCommand(rig.mcp, { session_id: pane.id, command, timeout_seconds: 0.5 })
    expect(first.isError).toBe(false)
    expect(first.data).toMatchObject({
      session_id: pane.id,
      status: "timed_out",
      sent: true,
      exit_code: null,
      error_code: "command_timeout"
    })
    const second = await runCommand(rig.mcp, { session_id: pane.id, command: "echo MUST-NOT-RUN" })
    expect(second.data).toMatchObject({ sent: false, error_code: "command_in_flight" })
    const picked = await commandResult(rig.mcp, { request_id: first.data.request_id, wait_seconds: 15 })
    expect(picked.data).toMatchObject({
      request_id: first.data.request_id,
      status: "completed",
      sent: true,
      exit_code: 3,
      output: "far-slow-done"
    })
    // Exactly the one command reached the remote pane.
    expect(pane.files.recorder.textSince(mark)).toBe(`${command}\r`)
  })

  it("interrupt_command stops a long remote command with one ETX: exit 130, the pane ready again", async () => {
    const bystander = await remotePane(rig.mcp, host)
    const pane = await remotePane(rig.mcp, host)
    const mark = pane.files.recorder.mark()
    const command = "sleep 100"
    const first = await runCommand(rig.mcp, { session_id: pane.id, command, timeout_seconds: 0.5 })
    expect(first.data).toMatchObject({ status: "timed_out", sent: true })
    await waitForReadiness(rig.mcp, pane.id, "busy")
    await host.far.waitForScreen(pane, (screen) => screen.includes(command))
    expect(pane.files.recorder.textSince(mark)).toBe(`${command}\r`)
    const etxMark = pane.files.recorder.mark()
    const otherMark = bystander.files.recorder.mark()
    const answer = await interruptCommand(rig.mcp, { request_id: first.data.request_id, wait_seconds: 10 })
    expect(answer.isError, JSON.stringify(answer.data)).toBe(false)
    expect(answer.data).toMatchObject({
      request_id: first.data.request_id,
      session_id: pane.id,
      status: "completed",
      exit_code: 130,
      sent: true,
      interrupt_sent: true
    })
    expect(JSON.stringify(pane.files.recorder.textSince(etxMark))).toBe(JSON.stringify(ETX))
    expect(bystander.files.recorder.since(otherMark).length).toBe(0)
    const picked = await commandResult(rig.mcp, { request_id: first.data.request_id })
    expect(picked.data).toMatchObject({ status: "completed", exit_code: 130 })
    const next = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "echo again",
      timeout_seconds: 20
    })
    expect(next.data).toMatchObject({ status: "completed", exit_code: 0, output: "again" })
  })

  it("send_keys answers read -p on the remote pane after an accept: the program reads exactly 'y' CR", async () => {
    const pane = await remotePane(rig.mcp, host)
    const command = `read -r -p 'far continue? [y/N] ' a; echo "got=$a"`
    const mark = pane.files.recorder.mark()
    const started = await runCommand(rig.mcp, { session_id: pane.id, command, wait_for_completion: false })
    expect(started.data).toMatchObject({ status: "submitted", sent: true })
    await host.far.waitForScreen(pane, (screen) => screen.includes("far continue? [y/N]"))
    expect(pane.files.recorder.textSince(mark)).toBe(`${command}\r`)
    asked.length = 0
    const keysMark = pane.files.recorder.mark()
    const sent = await call(rig.mcp, "send_keys", {
      session_id: pane.id,
      keys: [{ text: "y" }, { key: "Enter" }]
    })
    expect(sent.isError, JSON.stringify(sent.data)).toBe(false)
    expect(sent.data).toMatchObject({ sent: true, keys: '"y" Enter' })
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain(JSON.stringify(pane.id))
    const done = await commandResult(rig.mcp, { request_id: started.data.request_id, wait_seconds: 10 })
    // As on a local pane: the prompt and the answer are the command's output too.
    expect(done.data).toMatchObject({
      status: "completed",
      exit_code: 0,
      output: "far continue? [y/N] y\ngot=y"
    })
    expect(JSON.stringify(pane.files.recorder.textSince(keysMark))).toBe(JSON.stringify("y\r"))
  })
})
