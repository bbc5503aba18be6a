/**
 * End to end over real tmux, through the real MCP SDK client with an elicitation handler: the
 * approval policy ('always', then 'risky') and send_keys, which always asks. What reached each
 * pane is proven from the panes' own input recorders (`script -I`: every byte the shell or the
 * program in it read): an accept types exactly once; decline, dismiss, a late answer and a client
 * without elicitation type nothing; a pane turned busy during the dialog is refused after the
 * accept; send_keys answers `read -p`, quits `less`, and never reaches a synchronized window.
 */
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_APPROVAL_CONFIG } from "../../src/domain/ApprovalPolicy.js"
import { commandResult, expectRejected, runCommand, waitForStart } from "../support/E2eHelpers.js"
import { call } from "../support/FakeIterm2Backend.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"

let answer: (request: ElicitRequest) => Promise<ElicitResult> = async () => ({ action: "decline" })
const asked: Array<string> = []
const elicit = async (request: ElicitRequest) => {
  asked.push(request.params.message)
  return answer(request)
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let always: TmuxRig
let risky: TmuxRig
let incapable: TmuxRig

beforeAll(async () => {
  always = await openTmuxRig({
    elicit,
    config: { approval: { ...DEFAULT_APPROVAL_CONFIG, policy: "always", timeoutSeconds: 2 } }
  })
  risky = await openTmuxRig({ elicit, config: { approval: { ...DEFAULT_APPROVAL_CONFIG, policy: "risky" } } })
  incapable = await openTmuxRig({ config: { approval: { ...DEFAULT_APPROVAL_CONFIG, policy: "always" } } })
})

afterAll(async () => {
  await always?.close()
  await risky?.close()
  await incapable?.close()
})

const keys = (rig: TmuxRig, args: Record<string, unknown>) => call(rig.mcp, "send_keys", args)

describe("approval policy 'always' on tmux", () => {
  it("accept types the command exactly once; the dialog names the tmux target", async () => {
    const pane = await always.pane()
    answer = async () => ({ action: "accept" })
    asked.length = 0
    const mark = pane.files.recorder.mark()
    const ran = await runCommand(always.mcp, { session_id: pane.id, command: "echo ok-$((1+1))" })
    expect(ran.data).toMatchObject({ status: "completed", exit_code: 0, output: "ok-2" })
    expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("echo ok-$((1+1))\r"))
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain("»echo ok-$((1+1))«")
    expect(asked[0]).toContain(`tmux session_id ${JSON.stringify(pane.id)}`)
  })

  it("decline, dismiss and an answer after the timeout: nothing reaches any pane", async () => {
    const pane = await always.pane()
    const cases: ReadonlyArray<readonly [typeof answer, string]> = [
      [async () => ({ action: "decline" }), "declined_by_user"],
      [async () => ({ action: "cancel" }), "approval_timed_out"],
      [
        async () => {
          await sleep(3000)
          return { action: "accept" }
        },
        "approval_timed_out"
      ]
    ]
    for (const [reply, code] of cases) {
      answer = reply
      const ran = await expectNothingReached(
        always.worlds,
        async () => {
          const result = await runCommand(always.mcp, { session_id: pane.id, command: "echo must-not-run" })
          await sleep(1500) // a late accept arrives meanwhile: still nothing
          return result
        },
        code
      )
      expectRejected(ran, code)
    }
  })

  it("a pane the person made busy during the dialog is refused after the accept; only their keys arrived", async () => {
    const pane = await always.pane()
    const mark = pane.files.recorder.mark()
    answer = async () => {
      await always.world.type(pane, "sleep 3\r")
      await waitUntil("sleep in the foreground", () => pane.files.foreground() === "sleep")
      return { action: "accept" }
    }
    const ran = await runCommand(always.mcp, { session_id: pane.id, command: "echo after-busy" })
    expectRejected(ran, "session_not_ready")
    expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("sleep 3\r"))
  })

  it("a client without the elicitation capability: approval_unavailable, nothing reaches any pane", async () => {
    const pane = await incapable.pane()
    const ran = await expectNothingReached(incapable.worlds, () =>
      runCommand(incapable.mcp, { session_id: pane.id, command: "echo unasked" })
    )
    expectRejected(ran, "approval_unavailable")
  })
})

describe("approval for interrupt_command on tmux", () => {
  it("decline sends no ETX; accept sends exactly one, and the command ends with 130", async () => {
    const pane = await always.pane()
    answer = async () => ({ action: "accept" })
    const sent = await runCommand(always.mcp, {
      session_id: pane.id,
      command: "sleep 30",
      wait_for_completion: false
    })
    await waitUntil("sleep in the foreground", () => pane.files.foreground() === "sleep")
    await waitForStart(always.mcp, sent.data.request_id)
    const mark = pane.files.recorder.mark()
    answer = async () => ({ action: "decline" })
    const declined = await call(always.mcp, "interrupt_command", { request_id: sent.data.request_id })
    expect(declined.data.error_code).toBe("declined_by_user")
    expect(pane.files.recorder.textSince(mark)).toBe("")
    answer = async () => ({ action: "accept" })
    const stopped = await call(always.mcp, "interrupt_command", {
      request_id: sent.data.request_id,
      wait_seconds: 10
    })
    expect(stopped.data).toMatchObject({ status: "completed", exit_code: 130, interrupt_sent: true })
    expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("\u0003"))
  })
})

describe("approval policy 'risky' on tmux", () => {
  it("asks for `rm -rf` (declined: nothing reaches any pane) and not for `ls`", async () => {
    const pane = await risky.pane()
    answer = async () => ({ action: "decline" })
    asked.length = 0
    const ran = await expectNothingReached(risky.worlds, () =>
      runCommand(risky.mcp, { session_id: pane.id, command: "rm -rf ./never-there" })
    )
    expectRejected(ran, "declined_by_user")
    expect(asked).toHaveLength(1)
    const ls = await runCommand(risky.mcp, { session_id: pane.id, command: "ls /" })
    expect(ls.data.status).toBe("completed")
    expect(asked).toHaveLength(1)
  })
})

describe("send_keys on tmux", () => {
  it("answers read -p [y/N] after an accept: the program reads exactly 'y' CR", async () => {
    const pane = await risky.pane()
    const started = await runCommand(risky.mcp, {
      session_id: pane.id,
      command: `read -r -p 'continue? [y/N] ' a; echo "got=$a"`,
      wait_for_completion: false
    })
    await risky.world.waitForScreen(pane, (screen) => screen.includes("continue? [y/N]"))
    answer = async () => ({ action: "decline" })
    await expectNothingReached(risky.worlds, async () => {
      const refused = await keys(risky, { session_id: pane.id, keys: [{ text: "y" }, { key: "Enter" }] })
      expect(refused.data.error_code).toBe("declined_by_user")
    })
    answer = async () => ({ action: "accept" })
    const mark = pane.files.recorder.mark()
    const sent = await keys(risky, { session_id: pane.id, keys: [{ text: "y" }, { key: "Enter" }] })
    expect(sent.data).toMatchObject({ sent: true, keys: '"y" Enter' })
    const done = await commandResult(risky.mcp, { request_id: started.data.request_id, wait_seconds: 10 })
    expect(done.data).toMatchObject({ status: "completed", exit_code: 0 })
    expect(done.data.output).toContain("got=y")
    expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("y\r"))
  })

  it("quits less with q", async () => {
    const pane = await risky.pane()
    const started = await runCommand(risky.mcp, {
      session_id: pane.id,
      command: "seq 1 500 | less",
      wait_for_completion: false
    })
    await risky.world.waitForScreen(pane, (screen) => /^1\n2\n3$/m.test(screen))
    await risky.world.settled(pane)
    answer = async () => ({ action: "accept" })
    const mark = pane.files.recorder.mark()
    const sent = await keys(risky, { session_id: pane.id, keys: [{ text: "q" }] })
    expect(sent.isError, JSON.stringify(sent.data)).toBe(false)
    const done = await commandResult(risky.mcp, { request_id: started.data.request_id, wait_seconds: 10 })
    expect(done.data).toMatchObject({ status: "completed", exit_code: 0 })
    expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("q"))
  })

  it("refuses a window with synchronize-panes on, even after an accept: nothing reaches any pane", async () => {
    const pane = await risky.pane()
    await risky.world.split(pane)
    await risky.world.tmux("set-window-option", "-t", pane.paneId, "synchronize-panes", "on")
    answer = async () => ({ action: "accept" })
    const refused = await expectNothingReached(risky.worlds, () =>
      keys(risky, { session_id: pane.id, keys: [{ text: "q" }] })
    )
    expect(refused.isError).toBe(true)
    expect(refused.data.error_code).toBe("session_not_ready")
    expect(String(refused.data.message)).toContain("synchronize-panes")
    await risky.world.tmux("set-window-option", "-t", pane.paneId, "synchronize-panes", "off")
  })
})
