/**
 * End to end over real tmux, where a command may go: only to the exact pane id given, only when
 * its shell is idle at an empty prompt with shell integration. Every refusal is proven from the
 * panes' own input recorders (Proof.expectNothingReached): not one byte reached any pane of any
 * server — including a live server TermPilot was not configured for.
 */
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mainLayerWith } from "../../src/layers/app/MainLive.js"
import { appConfigFor } from "../support/AppConfigFixture.js"
import {
  expectRejected,
  listed,
  listSessions,
  readTerminal,
  runCommand,
  waitForReadiness
} from "../support/E2eHelpers.js"
import { fakeSettings } from "../support/FakeIterm2Backend.js"
import { openMcpHarness } from "../support/McpHarness.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { openTmuxRig, type RigPane, settle, type TmuxRig, tmuxSettingsFor } from "../support/tmux/TmuxRig.js"
import { TmuxWorld } from "../support/tmux/TmuxWorld.js"

let rig: TmuxRig
/** A live tmux server on a socket TermPilot was not told about. */
let stranger: TmuxWorld

beforeAll(async () => {
  rig = await openTmuxRig()
  stranger = TmuxWorld.create()
  await stranger.newSession("stranger")
})

afterAll(async () => {
  await rig?.close()
  await stranger?.close()
})

const MARKER = "tp_argv MUST-NOT-RUN"

/** Tries run_command on `sessionId`; proves nothing reached any pane; returns the result. */
const refused = async (sessionId: string, code: string) => {
  const result = await expectNothingReached(
    [...rig.worlds, stranger],
    () => runCommand(rig.mcp, { session_id: sessionId, command: MARKER, timeout_seconds: 5 }),
    `run_command on ${JSON.stringify(sessionId)}`
  )
  expectRejected(result, code)
  expect(result.data.session_id).toBe(sessionId)
  return result
}

const lastLine = async (pane: RigPane) => (await rig.world.screen(pane)).split("\n").at(-1)

describe("only exact tmux pane ids are accepted", () => {
  it("refuses every tmux target form and every near-miss of a real id, reaching no pane", async () => {
    const { world } = rig
    const target = await rig.pane({ session: "work", name: "win" })
    await world.tmux("select-pane", "-t", target.paneId, "-T", "the-title")
    const other = await rig.pane()
    const [, pid, start] = /:(\d+)\.(\d+):%\d+$/.exec(target.id)!
    const strangerPane = stranger.panes[0]!
    const notIds = new Set([
      target.paneId,
      other.paneId,
      "%0",
      "work:1.0",
      "work:0.0",
      "work",
      "work:",
      "=work",
      "{last}",
      "{marked}",
      "!",
      ".",
      "the-title",
      "win",
      "main",
      `tmux:${world.socket}:${Number(pid) + 1}.${start}:${target.paneId}`,
      `tmux:${world.socket}:${pid}.${Number(start) - 1}:${target.paneId}`,
      `tmux:${world.socket}:${pid}:${target.paneId}`,
      `tmux:${world.socket}:${pid}.${start}:${target.paneId.slice(1)}`,
      `tmux:${world.socket}:${pid}.${start}:work:1.0`,
      `tmux:${world.socket}:${pid}.${start}:{last}`,
      `tmux:${world.socket}/:${pid}.${start}:${target.paneId}`,
      `tmux:${world.socket.slice(1)}:${pid}.${start}:${target.paneId}`,
      ` ${target.id}`,
      `${target.id} `,
      target.id.toUpperCase(),
      `${target.id}0`,
      // Leading zeros: the same numbers, not the same id.
      target.id.replace(/%(\d+)$/, "%0$1"),
      `tmux:${world.socket}:0${pid}.${start}:${target.paneId}`,
      `tmux:${world.socket}:${pid}.0${start}:${target.paneId}`,
      // The stranger is a live server with a real pane; its socket is not configured.
      await stranger.sessionId(strangerPane)
    ])
    // Every form is tried; the failures are reported together.
    const failures: Array<string> = []
    for (const id of notIds) {
      await refused(id, "session_not_found").catch((error: Error) => {
        failures.push(`${id}: ${error.message.split("\n")[0]}`)
      })
    }
    expect(failures).toEqual([])
    // The real id still works: nothing above disturbed the pane.
    expect((await listed(rig.mcp, target.id)).execution_readiness).toBe("ready")
  })

  it("refuses a pane killed between list_sessions and run_command", async () => {
    const pane = await rig.pane()
    expect((await listed(rig.mcp, pane.id)).execution_readiness).toBe("ready")
    await rig.world.tmux("kill-pane", "-t", pane.paneId)
    await refused(pane.id, "session_not_found")
  })

  it("refuses a pane whose id names the right socket and pane but a later server", async () => {
    // A killed pane's replacement gets the next %N, never the old one; the old id stays unknown.
    const pane = await rig.pane()
    await rig.world.tmux("kill-pane", "-t", pane.paneId)
    const next = await rig.pane()
    expect(next.paneId).not.toBe(pane.paneId)
    await refused(pane.id, "session_not_found")
  })
})

describe.each(["bash", "fish"] as const)("only a %s idle at an empty prompt receives a command", (shell) => {
  it("busy: a command the user started is still running", async () => {
    const pane = await rig.pane({ shell })
    await rig.world.runAsUser(pane, "sleep 30", (s) => s.endsWith("tp$ sleep 30"))
    await waitForReadiness(rig.mcp, pane.id, "busy")
    await refused(pane.id, "session_not_ready")
  })

  it("input_pending: text typed but not entered stays exactly as typed", async () => {
    const pane = await rig.pane({ shell })
    await rig.world.type(pane, "echo half-typed")
    await waitForReadiness(rig.mcp, pane.id, "input_pending")
    await refused(pane.id, "session_not_ready")
    expect(await lastLine(pane)).toBe("tp$ echo half-typed")
  })

  it("text typed between list_sessions and run_command", async () => {
    const pane = await rig.pane({ shell })
    expect((await listed(rig.mcp, pane.id)).execution_readiness).toBe("ready")
    await rig.world.type(pane, "ls -la")
    await rig.world.waitForScreen(pane, (s) => s.endsWith("tp$ ls -la"))
    // Once TermPilot has seen the echo, the re-check at run time (not the stale list) decides.
    await waitForReadiness(rig.mcp, pane.id, "input_pending")
    await refused(pane.id, "session_not_ready")
    expect(await lastLine(pane)).toBe("tp$ ls -la")
  })

  it.each([
    // `vi` is vim here and vim-tiny on a minimal Debian; it answers its own terminal queries at start.
    ["vi", "vi -u NONE -N"],
    ["less", "less /etc/passwd"]
  ])("interactive: %s holds the alternate screen", async (_, line) => {
    const pane = await rig.pane({ shell })
    await rig.world.runAsUser(pane, line, (s) => !s.includes("tp$"))
    await waitForReadiness(rig.mcp, pane.id, "interactive")
    await rig.world.settled(pane)
    await refused(pane.id, "session_not_ready")
  })

  it("interactive: the alternate screen is on though the shell shows a prompt", async () => {
    const pane = await rig.pane({ shell })
    await rig.world.runAsUser(pane, "printf '\\e[?1049h'", (s) => s.endsWith("tp$"))
    await waitForReadiness(rig.mcp, pane.id, "interactive")
    await refused(pane.id, "session_not_ready")
  })

  it("interactive: the pane is in copy mode", async () => {
    const pane = await rig.pane({ shell })
    await rig.world.tmux("copy-mode", "-t", pane.paneId)
    await waitForReadiness(rig.mcp, pane.id, "interactive")
    await refused(pane.id, "session_not_ready")
    await rig.world.tmux("send-keys", "-t", pane.paneId, "-X", "cancel")
    await waitForReadiness(rig.mcp, pane.id, "ready")
  })
})

describe("only exact panes of a window, and only live ones", () => {
  it("interactive: synchronize-panes is on (send-keys would reach every pane of the window)", async () => {
    const left = await rig.pane()
    const rightPane = await rig.world.split(left)
    const right = { ...rightPane, id: await rig.world.sessionId(rightPane) }
    await rig.world.tmux("set", "-w", "-t", left.paneId, "synchronize-panes", "on")
    await waitForReadiness(rig.mcp, left.id, "interactive")
    await refused(left.id, "session_not_ready")
    await refused(right.id, "session_not_ready")
  })

  it("a dead pane (remain-on-exit) is never a target", async () => {
    const pane = await rig.pane()
    await rig.world.tmux("set", "-w", "-t", pane.paneId, "remain-on-exit", "on")
    await rig.world.runAsUser(pane, "exit", () => true)
    await expect.poll(() => rig.world.format(pane.paneId, "#{pane_dead}"), { timeout: 10_000 }).toBe("1")
    const read = await readTerminal(rig.mcp, { session_id: pane.id, max_lines: 1 })
    expect(read.isError ? "(error)" : read.data.execution_readiness).not.toBe("ready")
    const result = await expectNothingReached(rig.worlds, () =>
      runCommand(rig.mcp, { session_id: pane.id, command: MARKER, timeout_seconds: 5 })
    )
    expect(result.isError).toBe(true)
    expect(result.data).toMatchObject({ status: "rejected", sent: false })
    expect(["session_not_ready", "session_not_found"]).toContain(result.data.error_code)
  })

  it("shell_integration_required: a shell without the snippet", async () => {
    const pane = await rig.pane({ shell: "plain" })
    await refused(pane.id, "shell_integration_required")
  })

  it("shell_integration_required: a fish shell without the snippet, which runs nothing", async () => {
    const pane = await rig.pane({ shell: "plain-fish" })
    await refused(pane.id, "shell_integration_required")
    expect(pane.files.executed()).toEqual([])
  })
})

describe("the pane TermPilot itself runs in", () => {
  it("is never a write target, though other panes of its server are", async () => {
    const own = await rig.pane()
    const neighbour = await rig.pane()
    const config = appConfigFor(fakeSettings(join(rig.world.root, "no-iterm2")), {}, undefined, {
      tmux: { ...tmuxSettingsFor(rig.worlds), ownPane: { socket: rig.world.socket, pane: own.paneId } },
      backends: { mode: "explicit", enabled: ["tmux"] }
    })
    const inside = await openMcpHarness(mainLayerWith(config))
    try {
      await settle(inside, neighbour, "ready")
      const listed = await listSessions(inside)
      expect(listed.find((s) => s.session_id === own.id)?.hosts_this_client).toBe(true)
      expect(listed.find((s) => s.session_id === neighbour.id)?.hosts_this_client).toBe(false)
      const result = await expectNothingReached(rig.worlds, () =>
        runCommand(inside, { session_id: own.id, command: MARKER, timeout_seconds: 5 })
      )
      expectRejected(result, "session_hosts_client")
      const ok = await runCommand(inside, { session_id: neighbour.id, command: "tp_argv neighbour" })
      expect(ok.data).toMatchObject({ status: "completed", exit_code: 0 })
      expect(neighbour.files.argv()).toEqual(["neighbour"])
    } finally {
      await inside.close()
    }
  })
})

describe("a pane that goes away while run_command waits", () => {
  it("reports session_lost with sent true, well before the timeout", async () => {
    const pane = await rig.pane()
    const started = Date.now()
    const pending = runCommand(rig.mcp, { session_id: pane.id, command: "sleep 30", timeout_seconds: 25 })
    await waitForReadiness(rig.mcp, pane.id, "busy")
    await rig.world.tmux("kill-pane", "-t", pane.paneId)
    const result = await pending
    expect(result.isError).toBe(false)
    expect(result.data).toMatchObject({
      session_id: pane.id,
      status: "session_lost",
      sent: true,
      exit_code: null,
      error_code: "session_lost"
    })
    expect(Date.now() - started).toBeLessThan(20_000)
    expect((await listSessions(rig.mcp)).map((s) => s.session_id)).not.toContain(pane.id)
  })
})
