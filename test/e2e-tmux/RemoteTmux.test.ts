/**
 * End to end over real tmux, real bash, a real ssh client and a real sshd on 127.0.0.1
 * (test/support/Sshd.ts: its own host key, key-only auth, its own hostname) WITH tmux: a private
 * tmux server started over that ssh on the "remote" side, under the host's own HOME and
 * TMUX_TMPDIR (its default server there). TermPilot is configured with the host as an alias of an
 * ssh_config the test wrote (`ssh -F`, TERMPILOT_SSH_CONFIG), next to a local tmux server: both
 * servers' panes are listed with ids unique across them, the remote ones with the remote hostname;
 * run_command on a remote pane is answered with its exit code and exact output; busy, typed text
 * and copy mode are refused with nothing sent (proven from the remote panes' own input
 * recorders); and once the host's sshd is gone, the listing names the host as unavailable while
 * the local panes still answer within the deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseTmuxHost } from "../../src/domain/tmux/TmuxHost.js"
import {
  expectRejected,
  listed,
  readTerminal,
  runCommand,
  typed,
  waitForReadiness
} from "../support/E2eHelpers.js"
import { REMOTE_HOSTNAME, type RemoteHost } from "../support/Sshd.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import {
  remotePane as remoteWindow,
  startTmuxHost,
  stopTmuxHost,
  type TmuxHostFixture
} from "../support/tmux/RemoteHosts.js"
import { openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"
import type { TmuxWorld } from "../support/tmux/TmuxWorld.js"

const ALIAS = "tp-loop"
let rig: TmuxRig
let host: TmuxHostFixture
let remote: RemoteHost
let far: TmuxWorld

beforeAll(async () => {
  host = await startTmuxHost(ALIAS)
  ;({ far, sshd: remote } = host)
  rig = await openTmuxRig({ hosts: [parseTmuxHost(ALIAS)!], sshConfig: remote.sshConfig(ALIAS) })
}, 60_000)

afterAll(async () => {
  await rig?.close()
  await stopTmuxHost(host)
})

/** A remote pane (a new window of the remote's `main` session), at a prompt TermPilot saw drawn. */
const remotePane = (): Promise<RigPane> => remoteWindow(rig.mcp, host)

const refused = (pane: RigPane, code: string, label: string) =>
  expectNothingReached(
    [rig.world, far],
    () => runCommand(rig.mcp, { session_id: pane.id, command: "echo MUST-NOT-RUN", timeout_seconds: 5 }),
    label
  ).then((result) => expectRejected(result, code))

describe("a tmux server on another host, over ssh", () => {
  it("lists local and remote panes with ids unique across both, the remote ones with the remote hostname", async () => {
    const local = await rig.pane()
    const pane = await remotePane()
    const list = await typed<{
      sessions: ReadonlyArray<Record<string, unknown>>
      unavailable: ReadonlyArray<unknown>
    }>(rig.mcp, "list_sessions", {})
    const ids = list.data.sessions.map((s) => s.session_id as string)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toContain(local.id)
    expect(ids).toContain(pane.id)
    expect(list.data.unavailable).toEqual([])
    expect(await listed(rig.mcp, pane.id)).toMatchObject({
      backend: "tmux",
      hostname: REMOTE_HOSTNAME,
      cwd: far.home,
      via: null,
      execution_readiness: "ready"
    })
    expect((await listed(rig.mcp, local.id)).hostname).not.toBe(REMOTE_HOSTNAME)
    // Strict ids: another host, another socket or a malformed host names nothing.
    for (const bad of [
      pane.id.replace(`@${ALIAS}:`, "@other-host:"),
      pane.id.replace(":default:", ":/tmp/sock:"),
      pane.id.replace(`@${ALIAS}:`, "@-oProxyCommand=x:")
    ]) {
      const read = await readTerminal(rig.mcp, { session_id: bad })
      expect(read.isError).toBe(true)
      expect(read.data).toMatchObject({ error_code: "session_not_found" })
    }
  })

  it("run_command on a remote pane: the exit code and the exact output, the command typed once", async () => {
    const pane = await remotePane()
    const mark = pane.files.recorder.mark()
    const command = "hostname; printf 'a  b\\n\\tc\\n'; (exit 7)"
    const result = await runCommand(rig.mcp, { session_id: pane.id, command, timeout_seconds: 20 })
    expect(result.data).toMatchObject({ status: "completed", exit_code: 7, sent: true })
    // As the remote terminal drew it: the tab is spaces to the next tab stop, as for a local pane.
    expect(result.data.output).toBe(`${REMOTE_HOSTNAME}\na  b\n        c`)
    expect(pane.files.recorder.textSince(mark), "what the remote pane received").toBe(`${command}\r`)
    const read = await readTerminal(rig.mcp, { session_id: pane.id, max_lines: 5 })
    expect(read.isError).toBe(false)
    expect(read.data.content).toContain("a  b")
  })

  it("refuses a busy remote pane, one with typed text, one in copy mode: nothing sent", async () => {
    const busy = await remotePane()
    await far.runAsUser(busy, "sleep 30", (s) => s.includes("sleep 30"))
    await waitForReadiness(rig.mcp, busy.id, "busy")
    await refused(busy, "session_not_ready", "run_command on a busy remote pane")
    await far.press(busy, "C-c")

    const typedPane = await remotePane()
    await far.type(typedPane, "half a line")
    await waitForReadiness(rig.mcp, typedPane.id, "input_pending")
    await refused(typedPane, "session_not_ready", "run_command on a remote pane with typed text")
    await far.press(typedPane, "C-u")

    const copy = await remotePane()
    await far.tmux("copy-mode", "-t", copy.paneId)
    await waitForReadiness(rig.mcp, copy.id, "interactive")
    await refused(copy, "session_not_ready", "run_command on a remote pane in copy mode")
    await far.tmux("send-keys", "-t", copy.paneId, "-X", "cancel")
  })

  it("a host whose sshd is gone is listed as unavailable; the local panes answer within the deadline", async () => {
    const local = await rig.pane()
    const pane = await remotePane()
    await remote.stopListening()
    const started = Date.now()
    let list = await typed<{
      sessions: ReadonlyArray<{ session_id: string }>
      unavailable: ReadonlyArray<Record<string, unknown>>
    }>(rig.mcp, "list_sessions", {})
    // The control clients notice their connections ended; the next listing tries ssh again.
    const deadline = Date.now() + 15_000
    while (list.data.unavailable.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      list = await typed(rig.mcp, "list_sessions", {})
    }
    expect(list.isError).toBe(false)
    expect(list.data.unavailable).toEqual([
      expect.objectContaining({ backend: "tmux", host: ALIAS, error_code: "tmux_unavailable" })
    ])
    const ids = list.data.sessions.map((s) => s.session_id)
    expect(ids).toContain(local.id)
    expect(ids).not.toContain(pane.id)
    expect(Date.now() - started).toBeLessThan(20_000)
    const timed = Date.now()
    const again = await typed<{ unavailable: ReadonlyArray<unknown> }>(rig.mcp, "list_sessions", {})
    expect(again.data.unavailable).toHaveLength(1)
    expect(Date.now() - timed).toBeLessThan(6_000)
    const run = await expectNothingReached(
      [rig.world],
      () => runCommand(rig.mcp, { session_id: pane.id, command: "echo MUST-NOT-RUN", timeout_seconds: 5 }),
      "run_command on an unreachable host's pane"
    )
    expect(run.data).toMatchObject({ sent: false, error_code: "tmux_unavailable" })
  })
})
