/**
 * The tmux world itself (no TermPilot): its recorder logs exactly what a pane received, the
 * executed-lines log and tp_argv report what the shell ran, the fence passes copy mode and
 * synchronized windows, and the server is private and gone after close.
 */
import { existsSync, readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { TmuxWorld, type WorldPane } from "../support/tmux/TmuxWorld.js"

let world: TmuxWorld
let pane: WorldPane

beforeAll(async () => {
  world = TmuxWorld.create()
  pane = await world.newSession("self")
})

afterAll(async () => {
  await world?.close()
})

describe("the tmux world's recorder", () => {
  it("logs the bytes a pane received, and the shell reports what it ran and with which argv", async () => {
    const mark = pane.files.recorder.mark()
    const line = "tp_argv 'a b' c\\; '#{pane_id}' ~ é世"
    await world.runAsUser(pane, line, (screen) => screen.endsWith("\ntp$"))
    await expect.poll(() => pane.files.executed().at(-1)).toBe(line)
    expect(pane.files.recorder.textSince(mark)).toBe(`${line}\r`)
    expect(pane.files.argv()).toEqual(["a b", "c;", "#{pane_id}", world.home, "é世"])
  })

  it("proves nothing reached a pane through copy mode and a synchronized window", async () => {
    const other = await world.split(pane)
    await world.tmux("copy-mode", "-t", pane.paneId)
    await world.tmux("set", "-w", "-t", pane.paneId, "synchronize-panes", "on")
    await expectNothingReached([world], async () => undefined)
    // …and would have caught a keystroke.
    await expect(expectNothingReached([world], () => world.type(other, "x"))).rejects.toThrow(
      /bytes that reached/
    )
    await world.tmux("set", "-w", "-t", pane.paneId, "synchronize-panes", "off")
    await world.tmux("send-keys", "-t", pane.paneId, "-X", "cancel")
  })

  it("bash and zsh panes source the real snippet (a token announced); a plain pane has none", async () => {
    const zsh = await world.newWindow("self", { shell: "zsh" })
    const plain = await world.newWindow("self", { shell: "plain" })
    const token = /^ [0-9a-f]{16,}:[1-9][0-9]* [0-9a-f]{16,}:[1-9][0-9]*:nested$/
    expect(await world.format(pane.paneId, "#{@termpilot_tokens}")).toMatch(token)
    expect(await world.format(zsh.paneId, "#{@termpilot_tokens}")).toMatch(token)
    expect(await world.format(plain.paneId, "#{@termpilot_tokens}")).toBe("")
    await world.runAsUser(zsh, "tp_argv z1 'z 2'", (screen) => screen.endsWith("\ntp$"))
    await expect.poll(() => zsh.files.executed().at(-1)).toBe("tp_argv z1 'z 2'")
    expect(zsh.files.argv()).toEqual(["z1", "z 2"])
  })

  it("names panes with the server's own pid and start time", async () => {
    const id = await world.sessionId(pane)
    expect(id).toMatch(new RegExp(`^tmux:${world.socket}:\\d+\\.\\d+:%\\d+$`))
    expect(id.endsWith(`:${pane.paneId}`)).toBe(true)
  })

  it("kill-server leaves no server on the socket and none of the panes' processes", async () => {
    const second = TmuxWorld.create()
    try {
      const doomed = await second.newSession("gone")
      const shell = doomed.files.shellPid()!
      expect(existsSync(`/proc/${shell}`)).toBe(true)
      await second.killServer()
      await expect(second.tmux("list-sessions")).rejects.toThrow(/no server running|error connecting/)
      for (const pid of [doomed.pid, shell]) {
        const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "gone"
        expect(stat === "gone" || / Z /.test(stat), `process ${pid}: ${stat}`).toBe(true)
      }
    } finally {
      await second.close()
    }
  })
})
