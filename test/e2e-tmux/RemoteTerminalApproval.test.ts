/**
 * Approvals asked in the terminal on a tmux server of another host (over real ssh to a loopback
 * sshd, test/support/tmux/RemoteHosts.ts), through the real MCP client WITHOUT elicitation: the
 * menu's script reaches the remote tmux on ssh's stdin, the prompt appears on the person's client
 * attached to that remote server, `y` runs the command there once and `n` sends nothing, as the
 * remote pane's own input recorder proves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_APPROVAL_CONFIG } from "../../src/domain/ApprovalPolicy.js"
import { parseTmuxHost } from "../../src/domain/tmux/TmuxHost.js"
import { expectRejected, runCommand } from "../support/E2eHelpers.js"
import { PersonClient } from "../support/tmux/PersonClient.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { remotePane, startTmuxHost, stopTmuxHost, type TmuxHostFixture } from "../support/tmux/RemoteHosts.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"

const ALIAS = "tp-askin"
const PROMPT = "TermPilot asks for your approval"
let rig: TmuxRig
let host: TmuxHostFixture
let person: PersonClient | undefined

beforeAll(async () => {
  host = await startTmuxHost(ALIAS)
  rig = await openTmuxRig({
    hosts: [parseTmuxHost(ALIAS)!],
    sshConfig: host.sshd.sshConfig(ALIAS),
    config: { approval: { ...DEFAULT_APPROVAL_CONFIG, policy: "always", timeoutSeconds: 10 } }
  })
}, 60_000)

afterAll(async () => {
  await person?.close()
  await rig?.close()
  await stopTmuxHost(host)
})

const reading = () => new Promise((resolve) => setTimeout(resolve, 300))

describe("approvals asked on the person's tmux client of another host", () => {
  it("the prompt appears on the remote server's attached client; y runs the command once, n sends nothing", async () => {
    const pane = await remotePane(rig.mcp, host)
    person = await PersonClient.attach(host.far, "main")
    await host.far.tmux("select-window", "-t", pane.paneId)

    const mark = pane.files.recorder.mark()
    const ran = runCommand(rig.mcp, {
      session_id: pane.id,
      command: "echo far-$((3*3))",
      timeout_seconds: 20
    })
    const screen = await person.waitForScreen(
      "the prompt",
      (s) => s.includes(PROMPT) && s.includes("»echo far-$((3*3))«")
    )
    expect(screen).toContain(`Where: tmux pane ${pane.paneId} in window`)
    await reading()
    person.press("y")
    expect((await ran).data).toMatchObject({ status: "completed", exit_code: 0, output: "far-9" })
    expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("echo far-$((3*3))\r"))

    const declined = await expectNothingReached([rig.world, host.far], async () => {
      const pending = runCommand(rig.mcp, { session_id: pane.id, command: "echo never-far" })
      await person!.waitForScreen("the second prompt", (s) => s.includes("»echo never-far«"))
      await reading()
      person!.press("n")
      return pending
    })
    expectRejected(declined, "declined_by_user")
  })
})
