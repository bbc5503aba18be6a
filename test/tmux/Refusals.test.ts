/**
 * Every refusal of the tmux backend sends nothing, proven by the pane itself: the shell's log of
 * every line it read, what a running program read, and the screen. Busy (a builtin `read`, which
 * tmux reports as plain "bash"), alternate screen, typed-not-entered text, no integration, copy
 * mode, synchronize-panes, a dead pane, a pane killed after listing, id forms tmux would resolve,
 * and the pane TermPilot itself runs in.
 */
import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { request, run, TmuxWorld, waitFor } from "../support/tmux/TmuxWorld.js"

/**
 * tmux 3.2a's server itself exits in the dead-pane scenario below (remain-on-exit, the pane's shell
 * exits, then more commands on the server): seen in 3 of 4 runs on this session's code and on the
 * code before it alike, and never on 3.3a, 3.4, 3.5a or 3.7c. The server's exit takes every later
 * test of this file with it, so on 3.2a that one scenario is left out (issue 16's note says so).
 */
const version = /tmux (\d+)\.(\d+)/.exec(execFileSync("tmux", ["-V"], { encoding: "utf8" }))
const crashesOnDeadPanes = version !== null && Number(version[1]) === 3 && Number(version[2]) < 3

describe("tmux refusals send nothing", () => {
  const world = new TmuxWorld()
  const t = world.started()

  /** Run, expect a rejection with `code`, and prove that the pane's shell read nothing new. */
  const refused = async (sessionId: string, pane: string, code: string) => {
    const before = world.lines(pane)
    const result = await run(t.runner.run(request(sessionId, "echo SHOULD-NOT-RUN")))
    expect(result).toMatchObject({ status: "rejected", sent: false, error_code: code })
    await new Promise((r) => setTimeout(r, 150))
    expect(world.lines(pane)).toEqual(before)
    expect(world.capture(pane)).not.toContain("SHOULD-NOT-RUN")
    return result
  }

  it("refuses a pane running a builtin (busy): the program reads only what the person types", async () => {
    const pane = await world.freshPane()
    const id = await world.readyPane(t.backend, pane)
    world.tmux("send-keys", "-t", pane, "read -r got", "Enter")
    await world.until(t.backend, id, "busy")
    await refused(id, pane, "session_not_ready")
    world.tmux("send-keys", "-t", pane, "typed by a person", "Enter")
    await world.until(t.backend, id, "ready")
    expect(await run(t.runner.run(request(id, 'echo "[$got]"')))).toMatchObject({
      output: "[typed by a person]"
    })
  })

  it("refuses text typed at the prompt but not entered, and the line stays the person's", async () => {
    const pane = await world.freshPane()
    const id = await world.readyPane(t.backend, pane)
    world.tmux("send-keys", "-t", pane, "-l", "echo person")
    await world.until(t.backend, id, "input_pending")
    await refused(id, pane, "session_not_ready")
    world.tmux("send-keys", "-t", pane, "Enter")
    await waitFor("the person's line", () => (world.lines(pane).at(-1) === "echo person" ? true : undefined))
  })

  it("refuses a full-screen program on the alternate screen", async () => {
    const pane = await world.freshPane()
    const id = await world.readyPane(t.backend, pane)
    world.tmux("send-keys", "-t", pane, "vim -u NONE -N", "Enter")
    await world.until(t.backend, id, "interactive")
    const result = await refused(id, pane, "session_not_ready")
    expect(result.message).toMatch(/alternate screen/)
    world.tmux("send-keys", "-t", pane, "Escape", ":q!", "Enter")
    await world.until(t.backend, id, "ready")
    expect(world.lines(pane).at(-1)).toBe("vim -u NONE -N")
  })

  it("refuses copy mode, where keys would move the copy cursor", async () => {
    const pane = await world.freshPane()
    const id = await world.readyPane(t.backend, pane)
    world.tmux("copy-mode", "-t", pane)
    await world.until(t.backend, id, "interactive")
    const result = await refused(id, pane, "session_not_ready")
    expect(result.message).toMatch(/copy-mode/)
    world.tmux("send-keys", "-t", pane, "-X", "cancel")
    await world.until(t.backend, id, "ready")
  })

  it("refuses a window with synchronize-panes on, where keys would reach every pane", async () => {
    const pane = await world.freshPane()
    const other = world.split(pane)
    const id = await world.readyPane(t.backend, pane)
    world.tmux("set-window-option", "-t", pane, "synchronize-panes", "on")
    await world.until(t.backend, id, "interactive")
    const before = world.lines(other)
    const result = await refused(id, pane, "session_not_ready")
    expect(result.message).toMatch(/synchronize-panes/)
    expect(world.lines(other)).toEqual(before)
    world.tmux("set-window-option", "-t", pane, "synchronize-panes", "off")
  })

  it("refuses a shell without integration", async () => {
    const pane = await world.freshPane({ marks: false })
    const id = await world.idOf(t.backend, pane)
    world.tmux("send-keys", "-t", pane, "Enter")
    expect(await run(t.backend.terminal.readiness(id))).toBe("shell_integration_required")
    await refused(id, pane, "shell_integration_required")
  })

  it.skipIf(crashesOnDeadPanes)(
    "refuses a dead pane (remain-on-exit) and a pane killed after it was listed",
    async () => {
      const pane = await world.freshPane()
      world.tmux("set-window-option", "-t", pane, "remain-on-exit", "on")
      const id = await world.readyPane(t.backend, pane)
      world.tmux("send-keys", "-t", pane, "exit", "Enter")
      await world.until(t.backend, id, "interactive")
      const result = await run(t.runner.run(request(id, "echo x")))
      expect(result).toMatchObject({ status: "rejected", sent: false, error_code: "session_not_ready" })
      expect(result.message).toMatch(/dead/)

      const killed = await world.freshPane()
      const killedId = await world.readyPane(t.backend, killed)
      world.tmux("kill-pane", "-t", killed)
      expect(await run(t.runner.run(request(killedId, "echo x")))).toMatchObject({
        status: "rejected",
        sent: false,
        error_code: "session_not_found"
      })
    }
  )

  it("resolves no id form but its own: tmux targets, names, titles, another server life", async () => {
    const pane = await world.freshPane()
    const id = await world.readyPane(t.backend, pane)
    const [pid, start] = world.tmux("display", "-p", "#{pid} #{start_time}").trim().split(" ")
    const forms = [
      pane,
      "work",
      "work:1.0",
      `work:${pane}`,
      "{last}",
      "!",
      "$0",
      "@1",
      "vm",
      `tmux:${world.socket}:${Number(pid) + 1}.${start}:${pane}`,
      `tmux:${world.socket}:${pid}.${Number(start) - 1}:${pane}`,
      `tmux:${world.socket}x:${pid}.${start}:${pane}`,
      `tmux:${world.socket}:${pid}.${start}:${pane} `,
      `tmux:${world.socket}:${pid}.${start}:%99`
    ]
    for (const form of forms) {
      const result = await run(t.runner.run(request(form, "echo SHOULD-NOT-RUN")))
      expect(result.sent, form).toBe(false)
      expect(["session_not_found", "invalid_request"], form).toContain(result.error_code)
    }
    expect(world.lines(pane)).toEqual([])
    expect(id).toMatch(/^tmux:\//)
  })

  it("never types into the pane TermPilot itself runs in", async () => {
    const pane = await world.freshPane()
    const own = await world.backend({ ownPane: { socket: world.socket, pane } })
    const ownRunner = await world.runner(own)
    const id = await world.readyPane(own, pane)
    expect(await run(own.terminal.readiness(id))).toBe("ready")
    const result = await run(ownRunner.run(request(id, "echo SHOULD-NOT-RUN")))
    expect(result).toMatchObject({ status: "rejected", sent: false, error_code: "not_permitted" })
    expect(world.lines(pane)).toEqual([])
  })
})
