/**
 * End to end over real tmux with a person attached: a real `tmux attach` in a 132x43 pty (node-pty).
 * TermPilot attaching its control client, listing, reading and running commands there never
 * changes the window's size or layout, the person's pane is the current session, and when
 * TermPilot exits no client of its own is left behind.
 */
import * as pty from "node-pty"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { currentSession, listSessions, readTerminal, runCommand } from "../support/E2eHelpers.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import { openTmuxRig, type RigPane, settle, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig
let human: pty.IPty
/** The person's first window's pane (their active pane), and two panes of a second window. */
let home: RigPane
let pane: RigPane
let other: RigPane

const clients = async () =>
  (await rig.world.tmux("list-clients", "-F", "#{client_pid} #{client_control_mode}"))
    .split("\n")
    .filter((line) => line !== "")

const size = () => rig.world.format(pane.paneId, "#{window_width}x#{window_height} #{window_layout}")

beforeAll(async () => {
  rig = await openTmuxRig()
  const { world } = rig
  const first = await world.newSession("sized", { width: 160, height: 50 })
  human = pty.spawn("tmux", ["-S", world.socket, "-f", "/dev/null", "attach", "-t", "sized"], {
    name: "xterm-256color",
    cols: 132,
    rows: 43,
    env: world.env()
  })
  human.onData(() => undefined)
  await waitUntil("the human client to attach", async () => (await clients()).length === 1)
  home = { ...first, id: await world.sessionId(first) }
  // The panes TermPilot works in start at the person's size (nothing resizes them afterwards).
  const [a, b] = await world.tiledWindow("sized", 2)
  pane = { ...a!, id: await world.sessionId(a!) }
  other = { ...b!, id: await world.sessionId(b!) }
})

afterAll(async () => {
  if (human !== undefined) {
    await rig?.world.tmux("detach-client", "-a").catch(() => undefined)
    human.kill()
  }
  await rig?.close()
})

describe("a person attached in a 132x43 terminal", () => {
  it("keeps the window's size and layout while TermPilot attaches, lists, reads and runs", async () => {
    // The person's terminal sets the size: 132 columns, 43 rows less the status line.
    await expect.poll(() => rig.world.format(pane.paneId, "#{window_width}x#{window_height}")).toBe("132x42")
    const before = await size()

    await settle(rig.mcp, pane, "ready")
    expect(await size()).toBe(before)
    await listSessions(rig.mcp)
    await readTerminal(rig.mcp, { session_id: pane.id, max_lines: 100 })
    const result = await runCommand(rig.mcp, { session_id: pane.id, command: "tput cols; tput lines" })
    // The shell itself sees the size the person's terminal gave its pane.
    const paneSize = await rig.world.format(pane.paneId, "#{pane_width}\n#{pane_height}")
    expect(result.data).toMatchObject({ status: "completed", exit_code: 0, output: paneSize })
    expect(await size()).toBe(before)
    // TermPilot's own clients are control clients, attached to this session.
    const all = await clients()
    expect(all.filter((line) => line.endsWith(" 0"))).toHaveLength(1)
    expect(all.filter((line) => line.endsWith(" 1")).length).toBeGreaterThanOrEqual(1)
  })

  it("the person's active pane is the current session, and follows their focus", async () => {
    const current = await currentSession(rig.mcp)
    expect(current.isError, JSON.stringify(current.data)).toBe(false)
    expect(current.data).toMatchObject({ session_id: home.id, is_current: true })
    const listed = await listSessions(rig.mcp)
    expect(listed.filter((s) => s.is_current).map((s) => s.session_id)).toEqual([home.id])
    // The person moves to the second window, then to its other pane.
    await rig.world.tmux("select-window", "-t", pane.paneId)
    await rig.world.tmux("select-pane", "-t", pane.paneId)
    expect((await currentSession(rig.mcp)).data).toMatchObject({ session_id: pane.id, is_current: true })
    await rig.world.tmux("select-pane", "-t", other.paneId)
    expect((await currentSession(rig.mcp)).data).toMatchObject({ session_id: other.id, is_current: true })
  })

  it("TermPilot closing leaves only the person's client, and the size as it was", async () => {
    const before = await size()
    await rig.closeTermPilot()
    await waitUntil("TermPilot's control clients to exit", async () => (await clients()).length === 1)
    expect(await clients()).toEqual([expect.stringMatching(/ 0$/)])
    expect(await size()).toBe(before)
  })
})
