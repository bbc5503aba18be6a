/**
 * End to end over real tmux, real bash and a real sshd on 127.0.0.1 (test/support/Sshd.ts, its
 * ~/.bashrc without TermPilot's snippet): a pane whose foreground is a shell or ssh that has no
 * TermPilot snippet, while the person presses Enter there. Whether that shell started while
 * TermPilot watched or before it did, once its output came without a mark the pane is
 * `shell_integration_required` and run_command's refusal names the program (and ssh's host) and
 * what to install where; before anything came from a shell started earlier, the pane is `unknown`
 * with the press-Enter advice. Never `ready`; the panes' recorders prove nothing reached any pane.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type CommandView,
  expectRejected,
  listed,
  runCommand,
  waitForReadiness
} from "../support/E2eHelpers.js"
import { type RemoteHost, startRemoteHost } from "../support/Sshd.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"
import { TmuxWorld, type WorldPane } from "../support/tmux/TmuxWorld.js"

let remote: RemoteHost
let world: TmuxWorld
let rig: TmuxRig
/** Panes whose inner shell was started before TermPilot started. */
let nestedBefore: WorldPane
let sshBefore: WorldPane

const PLAIN_BASH = "PS1='inner$ ' bash --norc --noprofile -i"
/** Screens end with the prompt, trailing blanks dropped. */
const prompts = (screen: string, prompt: string) => screen.split("\n").filter((l) => l === prompt).length

beforeAll(async () => {
  remote = await startRemoteHost()
  remote.setRc("PS1='plain$ '\n")
  world = TmuxWorld.create()
  nestedBefore = await world.newSession("main")
  await world.runAsUser(nestedBefore, PLAIN_BASH, (s) => s.endsWith("inner$"))
  sshBefore = await world.newWindow("main")
  await world.runAsUser(sshBefore, remote.sshCommand, (s) => s.endsWith("plain$"))
  rig = await openTmuxRig({ worlds: [world] })
})

afterAll(async () => {
  if (rig !== undefined) await rig.close()
  else await world?.close()
  await remote?.stop()
})

/** run_command into `id`, refused with `code`: not one byte reached any pane. */
const refused = async (id: string, code: string, label: string): Promise<CommandView> => {
  const result = await expectNothingReached(
    rig.worlds,
    () => runCommand(rig.mcp, { session_id: id, command: "echo MUST-NOT-RUN", timeout_seconds: 5 }),
    label
  )
  expectRejected(result, code)
  return result.data
}

/** Presses Enter in `pane` and waits until its shell drew one more `prompt`. */
const pressEnter = async (pane: WorldPane, prompt: string) => {
  const before = prompts(await world.screen(pane), prompt)
  await world.press(pane, "Enter")
  await world.waitForScreen(pane, (s) => prompts(s, prompt) > before && s.endsWith(prompt))
}

const sshTarget = () => `ssh -p ${remote.port} root@127.0.0.1 'cat > ~/.termpilot-integration.bash`

describe("a plain bash inside the pane's integrated shell", () => {
  it("started while TermPilot watches, Enter pressed there: shell_integration_required, naming bash; ready again after exit", async () => {
    const pane = await rig.pane()
    await world.runAsUser(pane, PLAIN_BASH, (s) => s.endsWith("inner$"))
    await pressEnter(pane, "inner$")
    await waitForReadiness(rig.mcp, pane.id, "shell_integration_required")
    const refusal = await refused(
      pane.id,
      "shell_integration_required",
      "run_command into a plain nested bash"
    )
    expect(refusal.message).toContain("the inner shell (bash) has no TermPilot snippet")
    expect(refusal.message).toContain('eval "$(termpilot shell-integration bash)"')
    expect(refusal.message).toContain("Nothing was sent.")
    await world.runAsUser(pane, "exit", (s) => s.endsWith("tp$"))
    await waitForReadiness(rig.mcp, pane.id, "ready")
  })

  it("started before TermPilot: unknown with the press-Enter advice, then shell_integration_required after Enter", async () => {
    const id = await world.sessionId(nestedBefore)
    expect((await listed(rig.mcp, id)).execution_readiness).toBe("unknown")
    const waiting = await refused(id, "session_not_ready", "run_command into a plain bash seen before Enter")
    expect(waiting.message).toContain("it runs bash, started before TermPilot started watching")
    expect(waiting.message).toContain("press Enter in the pane once")
    // Still nothing from it: the same, however often it is asked.
    expect((await listed(rig.mcp, id)).execution_readiness).toBe("unknown")
    await pressEnter(nestedBefore, "inner$")
    await waitForReadiness(rig.mcp, id, "shell_integration_required")
    const refusal = await refused(
      id,
      "shell_integration_required",
      "run_command into a plain bash after Enter"
    )
    expect(refusal.message).toContain("the inner shell (bash) has no TermPilot snippet")
    await world.runAsUser(nestedBefore, "exit", (s) => s.endsWith("tp$"))
    await waitForReadiness(rig.mcp, id, "ready")
  })
})

describe("ssh to a host whose shell has no snippet", () => {
  it("started while TermPilot watches, Enter pressed there: shell_integration_required, naming ssh, the host and the install line", async () => {
    const pane = await rig.pane()
    await world.runAsUser(pane, remote.sshCommand, (s) => s.endsWith("plain$"))
    await pressEnter(pane, "plain$")
    await waitForReadiness(rig.mcp, pane.id, "shell_integration_required")
    const refusal = await refused(
      pane.id,
      "shell_integration_required",
      "run_command over ssh to a plain host"
    )
    expect(refusal.message).toContain("the inner shell (ssh to root@127.0.0.1) has no TermPilot snippet")
    expect(refusal.message).toContain(`termpilot shell-integration bash | ${sshTarget()}`)
    await world.runAsUser(pane, "exit", (s) => s.endsWith("tp$"))
    await waitForReadiness(rig.mcp, pane.id, "ready")
  })

  it("started before TermPilot: unknown with the press-Enter advice, then shell_integration_required after Enter", async () => {
    const id = await world.sessionId(sshBefore)
    expect((await listed(rig.mcp, id)).execution_readiness).toBe("unknown")
    const waiting = await refused(id, "session_not_ready", "run_command over ssh seen before Enter")
    expect(waiting.message).toContain(
      "it runs ssh to root@127.0.0.1, started before TermPilot started watching"
    )
    expect(waiting.message).toContain("press Enter in the pane once")
    await pressEnter(sshBefore, "plain$")
    await waitForReadiness(rig.mcp, id, "shell_integration_required")
    const refusal = await refused(id, "shell_integration_required", "run_command over ssh after Enter")
    expect(refusal.message).toContain("the inner shell (ssh to root@127.0.0.1) has no TermPilot snippet")
    expect(refusal.message).toContain(`termpilot shell-integration bash | ${sshTarget()}`)
    await world.runAsUser(sshBefore, "exit", (s) => s.endsWith("tp$"))
    await waitForReadiness(rig.mcp, id, "ready")
  })
})
