/**
 * Every refusal of the tmux backend sends nothing, proven by the panes themselves: each pane's
 * recorder (fenced: nothing but the fence byte reached any pane), the shell's log of every line it
 * ran, what a running program read, and the screen. Busy (a builtin `read`, which tmux reports as
 * the pane's own process), alternate screen, typed-not-entered text, no integration, copy mode,
 * synchronize-panes, a dead pane, a pane killed after listing, id forms tmux would resolve, and the
 * pane TermPilot itself runs in.
 */
import { execFileSync } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CommandRunner } from "../../src/services/CommandRunner.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { RecordedBackend, request, run } from "../support/tmux/RecordedBackend.js"
import { FENCE, waitUntil } from "../support/tmux/Recorder.js"
import type { WorldPane } from "../support/tmux/TmuxWorld.js"

/**
 * tmux 3.2a's server itself exits in the dead-pane scenario below (remain-on-exit, the pane's shell
 * exits, then more commands on the server): seen in 3 of 4 runs on this session's code and on the
 * code before it alike, and never on 3.3a, 3.4, 3.5a or 3.7c. The server's exit takes every later
 * test of this file with it, so on 3.2a that one scenario is left out (issue 16's note says so).
 */
const version = /tmux (\d+)\.(\d+)/.exec(execFileSync("tmux", ["-V"], { encoding: "utf8" }))
const crashesOnDeadPanes = version !== null && Number(version[1]) === 3 && Number(version[2]) < 3

describe("tmux refusals send nothing", () => {
  const rig = new RecordedBackend()
  const world = rig.world
  let runner: CommandRunner["Service"]

  beforeAll(async () => {
    await rig.open()
    runner = await rig.runner()
  })
  afterAll(() => rig.close())

  /** A new shell in its own window, `ready` (Enter pressed once); its session id. */
  const readyPane = async (options = {}) => {
    const pane = await rig.pane(options)
    return { pane, id: (await rig.ready(pane)).id }
  }

  /**
   * Run, expect a rejection with `code`, and prove that no pane received a byte (the recorders,
   * fenced), that the pane's shell ran nothing new and that its screen does not show the command.
   */
  const refused = async (sessionId: string, pane: WorldPane, code: string) => {
    const before = pane.files.executed()
    const result = await expectNothingReached(
      [world],
      () => run(runner.run(request(sessionId, "echo SHOULD-NOT-RUN"))),
      `a refusal (${code})`
    )
    expect(result).toMatchObject({ status: "rejected", sent: false, error_code: code })
    expect(pane.files.executed()).toEqual(before)
    expect(await world.screen(pane)).not.toContain("SHOULD-NOT-RUN")
    return result
  }

  it("refuses a pane running a builtin (busy): the program reads only what the person types", async () => {
    const { pane, id } = await readyPane()
    await world.type(pane, "read -r got")
    await world.press(pane, "Enter")
    await rig.until(id, "busy")
    const mark = pane.files.recorder.mark()
    await refused(id, pane, "session_not_ready")
    await world.type(pane, "typed by a person")
    await world.press(pane, "Enter")
    await rig.until(id, "ready")
    // What `read` was given: the proof's fence byte (bash's `read` drops NUL) and the person's line.
    expect(pane.files.recorder.textSince(mark)).toBe(`${FENCE}typed by a person\r`)
    expect(await run(runner.run(request(id, 'echo "[$got]"')))).toMatchObject({
      output: "[typed by a person]"
    })
  })

  it("refuses text typed at the prompt but not entered, and the line stays the person's", async () => {
    const { pane, id } = await readyPane()
    await world.type(pane, "echo person")
    await rig.until(id, "input_pending")
    await refused(id, pane, "session_not_ready")
    await world.press(pane, "Enter")
    await waitUntil("the person's line", () => pane.files.executed().at(-1) === "echo person")
  })

  it("refuses a full-screen program on the alternate screen", async () => {
    const { pane, id } = await readyPane()
    await world.type(pane, "vim -u NONE -N")
    await world.press(pane, "Enter")
    await rig.until(id, "interactive")
    // vim's answers to its own terminal queries at start are input too: let them arrive first.
    await world.settled(pane)
    const result = await refused(id, pane, "session_not_ready")
    expect(result.message).toMatch(/alternate screen/)
    await world.press(pane, "Escape")
    await world.type(pane, ":q!")
    await world.press(pane, "Enter")
    await rig.until(id, "ready")
    expect(pane.files.executed().at(-1)).toBe("vim -u NONE -N")
  })

  it("refuses copy mode, where keys would move the copy cursor", async () => {
    const { pane, id } = await readyPane()
    await world.tmux("copy-mode", "-t", pane.paneId)
    await rig.until(id, "interactive")
    const result = await refused(id, pane, "session_not_ready")
    expect(result.message).toMatch(/copy-mode/)
    await world.tmux("send-keys", "-t", pane.paneId, "-X", "cancel")
    await rig.until(id, "ready")
  })

  it("refuses a window with synchronize-panes on, where keys would reach every pane", async () => {
    const pane = await rig.pane()
    const other = await world.split(pane)
    const { id } = await rig.ready(pane)
    await world.tmux("set-window-option", "-t", pane.paneId, "synchronize-panes", "on")
    await rig.until(id, "interactive")
    const before = other.files.executed()
    const result = await refused(id, pane, "session_not_ready")
    expect(result.message).toMatch(/synchronize-panes/)
    expect(other.files.executed()).toEqual(before)
    await world.tmux("set-window-option", "-t", pane.paneId, "synchronize-panes", "off")
  })

  it("refuses a shell without integration", async () => {
    const pane = await rig.pane({ shell: "plain" })
    const id = await rig.listedId(pane)
    const mark = pane.files.recorder.mark()
    await world.press(pane, "Enter")
    expect(await run(rig.backend.terminal.readiness(id))).toBe("shell_integration_required")
    // The person's Enter is in the recorder before the refusal's proof marks it.
    await waitUntil("the Enter in the pane's recorder", () => pane.files.recorder.textSince(mark) === "\r")
    await refused(id, pane, "shell_integration_required")
  })

  it.skipIf(crashesOnDeadPanes)(
    "refuses a dead pane (remain-on-exit) and a pane killed after it was listed",
    async () => {
      const pane = await rig.pane()
      await world.tmux("set-window-option", "-t", pane.paneId, "remain-on-exit", "on")
      const { id } = await rig.ready(pane)
      await world.type(pane, "exit")
      await world.press(pane, "Enter")
      await rig.until(id, "interactive")
      const result = await run(runner.run(request(id, "echo x")))
      expect(result).toMatchObject({ status: "rejected", sent: false, error_code: "session_not_ready" })
      expect(result.message).toMatch(/dead/)

      const killed = await readyPane()
      await world.tmux("kill-pane", "-t", killed.pane.paneId)
      expect(await run(runner.run(request(killed.id, "echo x")))).toMatchObject({
        status: "rejected",
        sent: false,
        error_code: "session_not_found"
      })
    }
  )

  it("resolves no id form but its own: tmux targets, names, titles, another server life", async () => {
    const { pane, id } = await readyPane()
    const [pid, start] = (await world.tmux("display", "-p", "#{pid} #{start_time}")).trim().split(" ")
    const p = pane.paneId
    const forms = [
      p,
      "main",
      "main:1.0",
      `main:${p}`,
      "{last}",
      "!",
      "$0",
      "@1",
      "vm",
      `tmux:${world.socket}:${Number(pid) + 1}.${start}:${p}`,
      `tmux:${world.socket}:${pid}.${Number(start) - 1}:${p}`,
      `tmux:${world.socket}x:${pid}.${start}:${p}`,
      `tmux:${world.socket}:${pid}.${start}:${p} `,
      `tmux:${world.socket}:${pid}.${start}:%99`
    ]
    await expectNothingReached(
      [world],
      async () => {
        for (const form of forms) {
          const result = await run(runner.run(request(form, "echo SHOULD-NOT-RUN")))
          expect(result.sent, form).toBe(false)
          expect(["session_not_found", "invalid_request"], form).toContain(result.error_code)
        }
      },
      "the id forms"
    )
    expect(pane.files.executed()).toEqual([])
    expect(id).toMatch(/^tmux:\//)
  })

  it("never types into the pane TermPilot itself runs in", async () => {
    const pane = await rig.pane()
    const own = await rig.extraBackend({ ownPane: { socket: world.socket, pane: pane.paneId } })
    const ownRunner = await rig.runner(own)
    const { id } = await rig.ready(pane, own)
    expect(await run(own.terminal.readiness(id))).toBe("ready")
    const result = await expectNothingReached(
      [world],
      () => run(ownRunner.run(request(id, "echo SHOULD-NOT-RUN"))),
      "a run in TermPilot's own pane"
    )
    expect(result).toMatchObject({ status: "rejected", sent: false, error_code: "session_hosts_client" })
    expect(pane.files.executed()).toEqual([])
  })
})
