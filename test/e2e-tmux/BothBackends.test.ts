/**
 * End to end, iTerm2 (the protocol-level fake) and real tmux at once: list_sessions returns both,
 * each id reaches only its own backend (the fake's SendText ledger and the panes' recorders say
 * so), and in auto mode a backend that is not there hides nothing of the other.
 */
import { symlinkSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mainLayerWith } from "../../src/layers/app/MainLive.js"
import { appConfigFor } from "../support/AppConfigFixture.js"
import { expectRejected, listSessions, runCommand } from "../support/E2eHelpers.js"
import { call, fakeSettings } from "../support/FakeIterm2Backend.js"
import { openMcpHarness } from "../support/McpHarness.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { openTmuxRig, type RigPane, type TmuxRig, tmuxSettingsFor } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig
let pane: RigPane

beforeAll(async () => {
  rig = await openTmuxRig({ withIterm2: true })
  pane = await rig.pane()
})

afterAll(async () => {
  await rig?.close()
})

describe("iTerm2 and tmux side by side", () => {
  it("list_sessions returns the sessions of both backends", async () => {
    const iterm2 = rig.iterm2!
    const s = await iterm2.createWindow({ title: "in-iterm2" })
    const sessions = await listSessions(rig.mcp)
    expect(sessions.map((x) => [x.backend, x.session_id]).sort()).toEqual(
      [
        ["iterm2", s.sessionId],
        ["tmux", pane.id]
      ].sort()
    )
  })

  it("each id reaches only its own backend", async () => {
    const iterm2 = rig.iterm2!
    const s = await iterm2.createWindow({ title: "only-iterm2" })
    const before = iterm2.ledger.size
    const inIterm2 = await expectNothingReached(rig.worlds, () =>
      runCommand(rig.mcp, { session_id: s.sessionId, command: "echo in-iterm2; (exit 2)" })
    )
    expect(inIterm2.data).toMatchObject({ status: "completed", exit_code: 2, output: "in-iterm2" })
    expect(iterm2.ledger.all().slice(before)).toEqual([
      expect.objectContaining({ session: s.sessionId, text: "echo in-iterm2; (exit 2)\r" })
    ])

    const mark = pane.files.recorder.mark()
    const ledger = iterm2.ledger.size
    const inTmux = await runCommand(rig.mcp, { session_id: pane.id, command: "echo in-tmux; (exit 3)" })
    expect(inTmux.data).toMatchObject({ status: "completed", exit_code: 3, output: "in-tmux" })
    expect(pane.files.recorder.textSince(mark)).toBe("echo in-tmux; (exit 3)\r")
    expect(iterm2.ledger.size).toBe(ledger)
  })

  it("a tmux target form or a cross-backend id reaches neither backend", async () => {
    const iterm2 = rig.iterm2!
    const s = await iterm2.createWindow()
    const ledger = iterm2.ledger.size
    for (const id of [pane.paneId, "main:0.0", `tmux:${s.sessionId}`, pane.id.replace("tmux:", "")]) {
      const result = await expectNothingReached(rig.worlds, () =>
        runCommand(rig.mcp, { session_id: id, command: "tp_argv MUST-NOT-RUN" })
      )
      expectRejected(result, "session_not_found")
    }
    expect(iterm2.ledger.size).toBe(ledger)
  })
})

describe("auto mode: a backend that is not there hides nothing of the other", () => {
  const autoHarness = (iterm2Socket: string, sockets: ReadonlyArray<string>) =>
    openMcpHarness(
      mainLayerWith(
        appConfigFor(fakeSettings(iterm2Socket), {}, undefined, {
          tmux: { ...tmuxSettingsFor(rig.worlds), sockets },
          backends: { mode: "auto", enabled: ["iterm2", "tmux"] }
        })
      )
    )

  it("no iTerm2 socket: tmux panes only, no error", async () => {
    const mcp = await autoHarness(join(rig.world.root, "no-such-iterm2-socket"), [rig.world.socket])
    try {
      expect((await listSessions(mcp)).map((s) => s.session_id)).toContain(pane.id)
    } finally {
      await mcp.close()
    }
  })

  it("an iTerm2 socket that appears after the start: its sessions are listed and reached from then on", async () => {
    // The iTerm2 backend's code is loaded on its first use (BackendLive): here, after the start.
    const later = join(rig.world.root, "iterm2-socket-later")
    const mcp = await autoHarness(later, [rig.world.socket])
    try {
      const before = await listSessions(mcp)
      expect(before.map((s) => s.backend)).toEqual(before.map(() => "tmux"))
      const iterm2 = rig.iterm2!
      const s = await iterm2.createWindow({ title: "appears-later" })
      symlinkSync(rig.iterm2SocketPath!, later)
      const after = await listSessions(mcp)
      expect(after.map((x) => x.session_id)).toEqual(expect.arrayContaining([s.sessionId, pane.id]))
      const ledger = iterm2.ledger.size
      const ran = await runCommand(mcp, { session_id: s.sessionId, command: "echo reached-later; (exit 4)" })
      expect(ran.data).toMatchObject({ status: "completed", exit_code: 4, output: "reached-later" })
      expect(iterm2.ledger.all().slice(ledger)).toEqual([
        expect.objectContaining({ session: s.sessionId, text: "echo reached-later; (exit 4)\r" })
      ])
    } finally {
      await mcp.close()
    }
  })

  it("no tmux server: iTerm2 sessions only; neither: one error naming where each was looked for", async () => {
    const missing = join(rig.world.root, "no-such-tmux-socket")
    const mcp = await autoHarness(rig.iterm2SocketPath!, [missing])
    try {
      const sessions = await listSessions(mcp)
      expect(sessions.length).toBeGreaterThan(0)
      expect(sessions.every((s) => s.backend === "iterm2")).toBe(true)
    } finally {
      await mcp.close()
    }
    const none = await autoHarness(join(rig.world.root, "no-iterm2"), [missing])
    try {
      const list = await call(none, "list_sessions")
      expect(list.isError).toBe(true)
      expect(String(list.data.message)).toContain(missing)
    } finally {
      await none.close()
    }
  })
})
