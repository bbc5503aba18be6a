import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseTmuxHost } from "../../src/domain/tmux/TmuxHost.js"
import { expectRejected, listed, runCommand, typed, waitForReadiness } from "../support/E2eHelpers.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import {
  remoteId,
  remotePane as remoteWindow,
  startTmuxHost,
  stopTmuxHost,
  type TmuxHostFixture
} from "../support/tmux/RemoteHosts.js"
import { openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig
let hostA: TmuxHostFixture
let hostB: TmuxHostFixture
let configDir: string

beforeAll(async () => {
  hostA = await startTmuxHost("tp-a")
  hostB = await startTmuxHost("tp-b")
  configDir = mkdtempSync(join(tmpdir(), "tp-remote-routing-"))
  const config = join(configDir, "ssh_config")
  writeFileSync(config, [hostA, hostB].map((h) => readFileSync(h.sshd.sshConfig(h.alias), "utf8")).join("\n"))
  rig = await openTmuxRig({
    hosts: [parseTmuxHost(hostA.alias)!, parseTmuxHost(hostB.alias)!],
    sshConfig: config
  })
}, 90_000)

afterAll(async () => {
  await rig?.close()
  for (const host of [hostA, hostB]) await stopTmuxHost(host)
  if (configDir !== undefined) rmSync(configDir, { recursive: true, force: true })
})

const allWorlds = () => [rig.world, hostA.far, hostB.far]

/** A remote pane (a new window of the remote's `session`), at a prompt TermPilot saw drawn. */
const remotePane = (host: TmuxHostFixture, session = "main"): Promise<RigPane> =>
  remoteWindow(rig.mcp, host, session)

const refused = (id: string, code: string, label: string) =>
  expectNothingReached(
    allWorlds(),
    () => runCommand(rig.mcp, { session_id: id, command: "echo MUST-NOT-RUN", timeout_seconds: 5 }),
    label
  ).then((result) => expectRejected(result, code))

/** This process's children (every thread's), with their argv (Linux /proc). */
const children = (): ReadonlyArray<{ pid: number; argv: ReadonlyArray<string> }> =>
  readdirSync(`/proc/${process.pid}/task`)
    .flatMap((task) => {
      try {
        return readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8").split(" ")
      } catch {
        return []
      }
    })
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .flatMap((pid) => {
      try {
        return [
          {
            pid,
            argv: readFileSync(`/proc/${pid}/cmdline`, "utf8")
              .split("\0")
              .filter((a) => a !== "")
          }
        ]
      } catch {
        return []
      }
    })

/** The ssh control clients TermPilot runs for `alias`: `ssh … <alias> 'tmux -N -C attach-session …'`. */
const controlClients = (alias: string) =>
  children().filter(
    ({ argv }) =>
      /(^|\/)ssh$/.test(argv[0] ?? "") &&
      argv.includes(alias) &&
      /^tmux '?-N'? '?-C'? attach-session /.test(argv.at(-1) ?? "")
  )

describe("the routing matrix on panes of another host", () => {
  it("interactive: vim holds the alternate screen on the remote pane; nothing sent", async () => {
    const pane = await remotePane(hostA)
    await hostA.far.runAsUser(pane, "vi -u NONE -N", (s) => !s.includes("tp$"))
    await waitForReadiness(rig.mcp, pane.id, "interactive")
    await hostA.far.settled(pane)
    await refused(pane.id, "session_not_ready", "run_command on a remote pane in vim")
    await hostA.far.type(pane, "\u001b:q!\r")
  })

  it("interactive: synchronize-panes on the remote window; neither pane receives a byte", async () => {
    const left = await remotePane(hostA)
    const rightPane = await hostA.far.split(left)
    const right = await remoteId(hostA, rightPane)
    await hostA.far.tmux("set", "-w", "-t", left.paneId, "synchronize-panes", "on")
    await waitForReadiness(rig.mcp, left.id, "interactive")
    await refused(left.id, "session_not_ready", "run_command on a synchronized remote pane")
    await refused(right, "session_not_ready", "run_command on the other synchronized remote pane")
    await hostA.far.tmux("set", "-w", "-t", left.paneId, "synchronize-panes", "off")
  })

  it("a remote pane killed between list_sessions and run_command is session_not_found", async () => {
    // The only pane of its session: killing it ends the session, and with it the control client
    // attached there, while the server still answers over its other clients.
    const pane = await remotePane(hostB, "solo")
    expect((await listed(rig.mcp, pane.id)).execution_readiness).toBe("ready")
    await hostB.far.tmux("kill-pane", "-t", pane.paneId)
    await refused(pane.id, "session_not_found", "run_command on a killed remote pane")
  })

  it("the ssh transport killed mid-command: sent, outcome unknown (never completed); the host answers again", async () => {
    const pane = await remotePane(hostB)
    const started = Date.now()
    const pending = runCommand(rig.mcp, { session_id: pane.id, command: "sleep 30", timeout_seconds: 25 })
    await waitForReadiness(rig.mcp, pane.id, "busy")
    // A listing attaches TermPilot to both hosts (when this test runs alone too).
    await typed(rig.mcp, "list_sessions", {})
    const clients = controlClients(hostB.alias)
    expect(clients.length, "ssh control clients of tp-b under this process").toBeGreaterThan(0)
    expect(controlClients(hostA.alias).length).toBeGreaterThan(0)
    for (const { pid } of clients) process.kill(pid, "SIGKILL")
    const result = await pending
    expect(result.data.sent).toBe(true)
    expect(result.data.status).not.toBe("completed")
    expect(["session_lost", "error"]).toContain(result.data.status)
    if (result.data.status === "error") {
      expect(result.data.error_code).toBe("tmux_unavailable")
      expect(result.data.message).toContain("the command may still be running")
    }
    expect(result.data.exit_code ?? null).toBeNull()
    expect(Date.now() - started).toBeLessThan(20_000)
    // The other host's control clients were not touched.
    expect(controlClients(hostA.alias).length).toBeGreaterThan(0)
    // ssh again after the backoff: the same server, the same id, the command still running there.
    await expect
      .poll(
        async () =>
          (
            await typed<{ sessions: ReadonlyArray<{ session_id: string }> }>(rig.mcp, "list_sessions", {})
          ).data.sessions.some((s) => s.session_id === pane.id),
        { timeout: 20_000, interval: 250 }
      )
      .toBe(true)
    expect(controlClients(hostB.alias).every((c) => !clients.some((k) => k.pid === c.pid))).toBe(true)
    await hostB.far.press(pane, "C-c")
    await waitForReadiness(rig.mcp, pane.id, "ready")
  })

  it("two hosts and the local tmux at once: ids unique across all three, each command reaches its own pane only", async () => {
    const local = await rig.pane()
    const a = await remotePane(hostA)
    const b = await remotePane(hostB)
    const list = await typed<{
      sessions: ReadonlyArray<{ session_id: string; hostname: string }>
      unavailable: ReadonlyArray<unknown>
    }>(rig.mcp, "list_sessions", {})
    expect(list.data.unavailable).toEqual([])
    const ids = list.data.sessions.map((s) => s.session_id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of [local.id, a.id, b.id]) expect(ids).toContain(id)
    expect(a.id.startsWith(`tmux@${hostA.alias}:default:`)).toBe(true)
    expect(b.id.startsWith(`tmux@${hostB.alias}:default:`)).toBe(true)
    // Same tmux pane numbers on two hosts still name two sessions.
    expect(a.id.replace(/^tmux@[^:]+:/, "")).not.toBe(b.id.replace(/^tmux@[^:]+:/, ""))
    for (const [target, host] of [
      [b, hostB],
      [a, hostA],
      [local, null]
    ] as const) {
      const others = allWorlds()
        .flatMap((w) => w.panes)
        .filter((p) => p.world !== target.world || p.paneId !== target.paneId)
      const marks = others.map((p) => p.files.recorder.mark())
      const mark = target.files.recorder.mark()
      const command = `echo routed-${host?.alias ?? "local"}; (exit 3)`
      const result = await runCommand(rig.mcp, { session_id: target.id, command, timeout_seconds: 20 })
      expect(result.data).toMatchObject({
        status: "completed",
        exit_code: 3,
        output: `routed-${host?.alias ?? "local"}`
      })
      expect(target.files.recorder.textSince(mark)).toBe(`${command}\r`)
      others.forEach((p, i) => {
        expect(
          p.files.recorder.since(marks[i]!).length,
          `bytes that reached ${p.paneId} of ${p.world.socket}`
        ).toBe(0)
      })
    }
  })
})
