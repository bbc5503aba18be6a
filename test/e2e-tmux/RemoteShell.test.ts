/**
 * End to end over real tmux, real bash and a real sshd on 127.0.0.1 (test/support/Sshd.ts: its own
 * host key, key-only auth, a HOME with the snippet, no tmux on PATH, its own hostname): a pane that
 * ssh'es there is tracked at the remote shell — listed with the remote host, user and cwd and
 * `via: ["ssh"]`, `ready`, run_command answered by the remote shell with its exit code, a long
 * command picked up and interrupted — and back at the local prompt after `exit`; nested local
 * shells with and without the snippet; replays of recorded remote marks; and refusals, each proven
 * from the pane's own input recorder.
 */
import { execSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bashSnippet } from "../../src/shell-integration/BashSnippet.js"
import {
  callWithProgress,
  commandResult,
  expectRejected,
  interruptCommand,
  listed,
  requestIdOf,
  runCommand,
  waitForReadiness,
  waitForStart
} from "../support/E2eHelpers.js"
import { REMOTE_HOSTNAME, type RemoteHost, startRemoteHost } from "../support/Sshd.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import { openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig
let remote: RemoteHost
const root = join(import.meta.dirname, "..", "..")

beforeAll(async () => {
  remote = await startRemoteHost()
  remote.setRc("PS1='remote$ '\n")
  // The README's one-liner, with the built termpilot, over the real ssh (the destination swapped in).
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const oneLiner = /^ {2}(termpilot shell-integration bash \| ssh build-box .*)$/m.exec(readme)?.[1]
  if (oneLiner === undefined) throw new Error("the README has no one-line install over ssh")
  const line = oneLiner
    .replace(
      "termpilot shell-integration",
      `'${process.execPath}' '${join(root, "dist", "src", "cli", "bin.js")}' shell-integration`
    )
    .replace("ssh build-box", remote.sshBatch)
  execSync(line, { shell: "/bin/bash", timeout: 30_000, stdio: "ignore" })
  expect(readFileSync(join(remote.home, ".termpilot-integration.bash"), "utf8")).toBe(bashSnippet)
  expect(readFileSync(join(remote.home, ".bashrc"), "utf8")).toContain("source ~/.termpilot-integration.bash")
  rig = await openTmuxRig()
})

afterAll(async () => {
  await rig?.close()
  await remote?.stop()
})

/** A local pane logged in to the remote host, at the remote prompt. */
const sshPane = async (): Promise<RigPane> => {
  const pane = await rig.pane()
  await rig.world.runAsUser(pane, remote.sshCommand, (s) => s.endsWith("remote$"))
  await waitForReadiness(rig.mcp, pane.id, "ready")
  return pane
}

/** After `settleMs`, ten looks over half a second: the pane is never `ready`. */
const neverReady = async (pane: RigPane, settleMs: number) => {
  await new Promise((resolve) => setTimeout(resolve, settleMs))
  for (let i = 0; i < 10; i++) {
    expect((await listed(rig.mcp, pane.id)).execution_readiness).not.toBe("ready")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const refused = (pane: RigPane, code: string, label: string) =>
  expectNothingReached(
    rig.worlds,
    () => runCommand(rig.mcp, { session_id: pane.id, command: "echo MUST-NOT-RUN", timeout_seconds: 5 }),
    label
  ).then((result) => expectRejected(result, code))

describe("a pane ssh'd to a host with the snippet", () => {
  it("is listed with the remote host, user and cwd, via ssh, ready; run_command is answered there; exit brings the local prompt back", async () => {
    // The command ends the remote shell it runs in (`exit 3`): that shell reports no end of it, the
    // local shell reports ssh's (3). So the honest answer is the shell gone, ssh's status apart.
    const pane = await sshPane()
    const session = await listed(rig.mcp, pane.id)
    expect(session).toMatchObject({
      hostname: REMOTE_HOSTNAME,
      username: "root",
      cwd: remote.home,
      via: ["ssh"],
      execution_readiness: "ready"
    })
    const mark = pane.files.recorder.mark()
    const command = "hostname; echo $SSH_CONNECTION; echo $HOME; exit 3"
    const result = await runCommand(rig.mcp, { session_id: pane.id, command, timeout_seconds: 20 })
    expect(pane.files.recorder.textSince(mark), "what the pane received").toBe(`${command}\r`)
    expect(result.data).toMatchObject({
      status: "error",
      sent: true,
      error_code: "session_lost",
      exit_code: null,
      transport_exit_code: 3
    })
    const lines = (result.data.output ?? "").split("\n")
    expect(lines[0]).toBe(REMOTE_HOSTNAME)
    expect(lines[1]).toMatch(/^127\.0\.0\.1 \d+ 127\.0\.0\.1 \d+$/)
    expect(lines[2]).toBe(remote.home)
    // The remote shell is gone: the pane is at its local prompt again.
    await waitForReadiness(rig.mcp, pane.id, "ready")
    const back = await listed(rig.mcp, pane.id)
    expect(back.via).toEqual([])
    expect(back.hostname).not.toBe(REMOTE_HOSTNAME)
    const local = await runCommand(rig.mcp, { session_id: pane.id, command: "hostname", timeout_seconds: 20 })
    expect(local.data.output).not.toBe(REMOTE_HOSTNAME)
  })

  it("a long remote command: timed out, picked up, interrupted with one ETX (exit 130)", async () => {
    const pane = await sshPane()
    const mark = pane.files.recorder.mark()
    const started = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "sleep 100",
      timeout_seconds: 1
    })
    expect(started.data).toMatchObject({ status: "timed_out", sent: true })
    const requestId = started.data.request_id
    const still = await commandResult(rig.mcp, { request_id: requestId })
    expect(still.data.status).toBe("timed_out")
    const stopped = await interruptCommand(rig.mcp, { request_id: requestId, wait_seconds: 10 })
    expect(stopped.data).toMatchObject({ status: "completed", exit_code: 130, interrupt_sent: true })
    expect(pane.files.recorder.textSince(mark)).toBe("sleep 100\r\x03")
    await waitForReadiness(rig.mcp, pane.id, "ready")
    expect((await listed(rig.mcp, pane.id)).via).toEqual(["ssh"])
  })

  it("a remote command that runs 3 s reports progress while run_command waits", async () => {
    const pane = await sshPane()
    const { progress, answer } = callWithProgress(rig.mcp, "run_command", {
      session_id: pane.id,
      command: "for i in 1 2 3; do echo tick-$i; sleep 1; done",
      timeout_seconds: 20
    })
    const result = await answer
    expect(result.data).toMatchObject({ status: "completed", exit_code: 0, output: "tick-1\ntick-2\ntick-3" })
    expect(progress.length).toBeGreaterThanOrEqual(2)
    const requestId = result.data.request_id as string
    for (const p of progress) expect(requestIdOf(p.message)).toBe(requestId)
    expect(progress.every((p) => p.at <= result.at)).toBe(true)
  })

  it("refuses text typed at the remote prompt, sending nothing", async () => {
    const pane = await sshPane()
    await rig.world.type(pane, "echo half")
    await rig.world.waitForScreen(pane, (s) => s.endsWith("remote$ echo half"))
    await waitForReadiness(rig.mcp, pane.id, "input_pending")
    await refused(pane, "session_not_ready", "run_command at a half-typed remote line")
  })

  it("replayed remote marks, at the prompt and inside a command, neither make it ready nor end the command", async () => {
    const pane = await sshPane()
    const log = join(rig.world.root, `remote-raw-${pane.paneId.slice(1)}.log`)
    await rig.world.tmux("pipe-pane", "-o", "-t", pane.paneId, `cat >> '${log}'`)
    await rig.world.runAsUser(pane, "echo recorded", (s) => s.endsWith("remote$"))
    await rig.world.tmux("pipe-pane", "-t", pane.paneId)
    expect(readFileSync(log, "latin1")).toMatch(/\x1b\]133;B;tp=[0-9a-f]{64};sh=[0-9a-f]{16};n=\d+\x07/)
    // The recording, copied to the remote host, printed there by a command TermPilot runs.
    writeFileSync(join(remote.home, "recorded.log"), readFileSync(log))
    const result = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "cat recorded.log; sleep 1; echo after-replay; (exit 4)",
      timeout_seconds: 20
    })
    expect(result.data).toMatchObject({ status: "completed", exit_code: 4 })
    expect(result.data.duration_ms).toBeGreaterThanOrEqual(1000)
    expect(result.data.output).toMatch(/after-replay$/)
    // The same replay while the person's own remote command keeps running.
    await rig.world.runAsUser(pane, "cat recorded.log; sleep 30", (s) => s.includes("recorded\n"))
    await neverReady(pane, 300)
    await refused(pane, "session_not_ready", "run_command while a remote replay runs")
  })

  it("a forged-mark corpus printed by the remote host, split across reads: never ready, no early end", async () => {
    const pane = await sshPane()
    const secret = (await rig.world.format(pane.paneId, "#{@termpilot_tokens}"))
      .trim()
      .split(" ")
      .find((t) => t.endsWith(":nested"))!
      .split(":")[0]!
    const fresh = "0123456789abcdef"
    const fake = (tag: string) =>
      ["D;0", "A", "B"].map((m) => `\x1b]133;${m}${tag === "" ? "" : `;${tag}`};n=99999\x07`).join("")
    const corpus = [
      fake(""),
      fake(`tp=${"ab".repeat(16)}`),
      fake(`tp=${secret};sh=${fresh}`),
      fake(`tp=${"cd".repeat(32)};sh=${fresh}`),
      fake(`tp=${secret}`)
    ].join("$ ")
    const half = Math.floor(corpus.length / 2)
    writeFileSync(join(remote.home, "forged-1"), corpus.slice(0, half))
    writeFileSync(join(remote.home, "forged-2"), corpus.slice(half))
    const result = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "cat forged-1; sleep 0.3; cat forged-2; sleep 1; echo real-end; (exit 2)",
      timeout_seconds: 20
    })
    expect(result.data).toMatchObject({ status: "completed", exit_code: 2 })
    expect(result.data.duration_ms).toBeGreaterThanOrEqual(1300)
    expect(result.data.output).toMatch(/real-end$/)
    await rig.world.runAsUser(
      pane,
      "cat forged-1; sleep 0.3; cat forged-2; sleep 30",
      (s) => s.includes("99999") || true
    )
    await neverReady(pane, 600)
    await refused(pane, "session_not_ready", "run_command while forged remote marks print")
  })

  it("ssh killed mid-command (SIGTERM): session_lost with ssh's 255, never completed", async () => {
    const pane = await sshPane()
    const started = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "sleep 30",
      timeout_seconds: 1
    })
    expect(started.data).toMatchObject({ status: "timed_out", sent: true })
    await waitForStart(rig.mcp, started.data.request_id)
    // The pane's ssh client, found under the pane's shell by its pid.
    const children = execSync(`ps -o pid=,comm= --ppid ${pane.files.shellPid()}`, { encoding: "utf8" })
    const ssh = children.split("\n").find((l) => l.trim().endsWith(" ssh"))
    expect(ssh, children).toBeDefined()
    process.kill(Number(ssh!.trim().split(/\s+/)[0]), "SIGTERM")
    const after = await commandResult(rig.mcp, { request_id: started.data.request_id, wait_seconds: 10 })
    expect(after.data).toMatchObject({
      status: "error",
      sent: true,
      error_code: "session_lost",
      exit_code: null,
      transport_exit_code: 255
    })
    expect(after.data.message).toMatch(/The shell the command ran in .* went away/)
    // Final: it stays so.
    expect((await commandResult(rig.mcp, { request_id: started.data.request_id })).data.status).toBe("error")
    await waitForReadiness(rig.mcp, pane.id, "ready")
    expect((await listed(rig.mcp, pane.id)).via).toEqual([])
  })

  it("ssh dropped mid-command: the command is not reported as the remote's, and nothing more is sent", async () => {
    const pane = await sshPane()
    const started = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "sleep 100",
      timeout_seconds: 1
    })
    expect(started.data.status).toBe("timed_out")
    // The connection drops: the local ssh client is killed by its pid.
    const ssh = pane.files.foreground()
    expect(ssh).toBe("ssh")
    const shell = pane.files.shellPid()!
    const tpgid = Number(readFileSync(`/proc/${shell}/stat`, "latin1").split(") ")[1]!.split(" ")[5])
    process.kill(tpgid, "SIGKILL")
    await waitUntil("the local prompt after the drop", async () =>
      (await rig.world.screen(pane)).endsWith("tp$")
    )
    const after = await commandResult(rig.mcp, { request_id: started.data.request_id, wait_seconds: 5 })
    // The local shell reports ssh's end (killed: 137): the shell the command ran in went away.
    expect(after.data).toMatchObject({
      status: "error",
      error_code: "session_lost",
      exit_code: null,
      transport_exit_code: 137
    })
    await waitForReadiness(rig.mcp, pane.id, "ready")
    expect((await listed(rig.mcp, pane.id)).via).toEqual([])
  })
})

describe("the routing matrix's refusals for a remote pane", () => {
  it("busy: a remote command the person started", async () => {
    const pane = await sshPane()
    await rig.world.runAsUser(pane, "sleep 30", (s) => s.endsWith("remote$ sleep 30"))
    await waitForReadiness(rig.mcp, pane.id, "busy")
    await refused(pane, "session_not_ready", "run_command while a remote command runs")
  })

  it("interactive: vi over ssh holds the alternate screen", async () => {
    const pane = await sshPane()
    await rig.world.runAsUser(pane, "vi -u NONE -N", (s) => !s.includes("remote$"))
    await waitForReadiness(rig.mcp, pane.id, "interactive")
    await rig.world.settled(pane)
    await refused(pane, "session_not_ready", "run_command into vi over ssh")
  })

  it("interactive: copy mode, and synchronize-panes", async () => {
    const pane = await sshPane()
    await rig.world.tmux("copy-mode", "-t", pane.paneId)
    await waitForReadiness(rig.mcp, pane.id, "interactive")
    await refused(pane, "session_not_ready", "run_command into a remote pane in copy mode")
    await rig.world.tmux("send-keys", "-t", pane.paneId, "-X", "cancel")
    await waitForReadiness(rig.mcp, pane.id, "ready")
    await rig.world.tmux("set-window-option", "-t", pane.paneId, "synchronize-panes", "on")
    await waitForReadiness(rig.mcp, pane.id, "interactive")
    await refused(pane, "session_not_ready", "run_command into a synchronized remote pane")
    await rig.world.tmux("set-window-option", "-t", pane.paneId, "synchronize-panes", "off")
  })

  it("a killed remote pane is session_not_found", async () => {
    const pane = await sshPane()
    await rig.world.tmux("kill-pane", "-t", pane.paneId)
    await refused(pane, "session_not_found", "run_command into a killed remote pane")
  })
})

describe("nested local shells", () => {
  it("bash in bash with the snippet: tracked at the inner shell (via bash), and the outer one again after exit", async () => {
    const pane = await rig.pane()
    await rig.world.runAsUser(pane, "PS1='inner$ ' bash --norc --noprofile -i", (s) => s.endsWith("inner$"))
    await rig.world.runAsUser(pane, `source '${join(pane.files.dir, "termpilot.bash")}'`, (s) =>
      s.endsWith("inner$")
    )
    await waitForReadiness(rig.mcp, pane.id, "ready")
    expect((await listed(rig.mcp, pane.id)).via).toEqual(["bash"])
    const inner = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "echo $$; (exit 6)",
      timeout_seconds: 20
    })
    expect(inner.data).toMatchObject({ status: "completed", exit_code: 6 })
    expect(Number(inner.data.output)).not.toBe(pane.files.shellPid())
    await rig.world.runAsUser(pane, "exit", (s) => s.endsWith("tp$"))
    await waitForReadiness(rig.mcp, pane.id, "ready")
    expect((await listed(rig.mcp, pane.id)).via).toEqual([])
  })

  it("a nested shell without the snippet is shell_integration_required, and nothing is sent", async () => {
    const pane = await rig.pane()
    await rig.world.runAsUser(pane, "env -u LC_TERMPILOT PS1='bare$ ' bash --norc --noprofile -i", (s) =>
      s.endsWith("bare$")
    )
    await waitForReadiness(rig.mcp, pane.id, "shell_integration_required")
    await refused(pane, "shell_integration_required", "run_command into a nested shell without integration")
  })
})
