/**
 * Terminal.interrupt over real tmux and bash with TermPilot's marks, each pane's input recorded
 * by `script -I`: a running `sleep` gets exactly one ETX and ends with the shell's 130; a program
 * ignoring SIGINT gets one and keeps running; a finished or not started command gets none; copy
 * mode, synchronize-panes, a dead, a killed and TermPilot's own pane are refused with nothing sent;
 * and a command ending right at the interrupt gets at most that one ETX, reported truthfully.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { codeOf, etx, RecordedBackend, run } from "../support/tmux/RecordedBackend.js"
import { FENCE, waitUntil } from "../support/tmux/Recorder.js"
import type { WorldPane } from "../support/tmux/TmuxWorld.js"

describe("tmux interrupt", () => {
  const rig = new RecordedBackend()
  let bystander: WorldPane

  beforeAll(async () => {
    bystander = await rig.open()
  })
  afterAll(() => rig.close())

  /** What reached each pane after `marks` (fenced, so everything tmux wrote before is logged). */
  const arrived = async (panes: ReadonlyArray<WorldPane>, marks: ReadonlyArray<number>) => {
    await rig.world.fence(panes, marks)
    return panes.map((p, i) => p.files.recorder.since(marks[i]!).toString("latin1"))
  }

  it("sends one ETX to a running sleep, which ends with exit 130; no other pane gets a byte", async () => {
    const pane = await rig.pane()
    const { id, events } = await rig.ready(pane)
    const promptId = await rig.start(id, events, "sleep 100")
    await waitUntil("sleep in the foreground", () => pane.files.foreground() === "sleep")
    const panes = [pane, bystander]
    const marks = panes.map((p) => p.files.recorder.mark())
    expect(await run(rig.backend.terminal.interrupt(id, promptId))).toBe("sent")
    expect(await events.next("CommandEnd")).toMatchObject({ _tag: "CommandEnd", promptId, exitCode: 130 })
    expect(await arrived(panes, marks)).toEqual([`\x03${FENCE}`, FENCE])
  })

  it("sends one ETX to a program that ignores SIGINT, which keeps running", async () => {
    const pane = await rig.pane()
    const { id, events } = await rig.ready(pane)
    const promptId = await rig.start(id, events, `bash -c 'trap "" INT; echo armed; sleep 100'`)
    // Only once the trap is set does the program ignore SIGINT (C comes just before it starts).
    await rig.world.waitForScreen(pane, (screen) => /^armed$/m.test(screen))
    const mark = pane.files.recorder.mark()
    expect(await run(rig.backend.terminal.interrupt(id, promptId))).toBe("sent")
    await expect(events.next("CommandEnd", 1_500)).rejects.toThrow(/no CommandEnd/)
    expect(await run(rig.backend.terminal.readiness(id))).toBe("busy")
    expect(etx(pane, mark)).toBe(1)
    expect(await arrived([pane], [mark])).toEqual([`\x03${FENCE}`])
  })

  it("answers ended for a finished command and not_started for a prompt whose line did not run, sending nothing", async () => {
    const pane = await rig.pane()
    const { id, events, promptId: idle } = await rig.ready(pane)
    const mark = pane.files.recorder.mark()
    expect(await run(rig.backend.terminal.interrupt(id, idle))).toBe("not_started")
    expect(await arrived([pane], [mark])).toEqual([FENCE])
    const done = await rig.start(id, events, "true")
    await events.next("CommandEnd")
    await events.next("Prompt")
    const after = pane.files.recorder.mark()
    expect(await run(rig.backend.terminal.interrupt(id, done))).toBe("ended")
    expect(await arrived([pane], [after])).toEqual([FENCE])
  })

  it("refuses copy mode and synchronize-panes (session_not_ready) with nothing sent to any pane", async () => {
    const pane = await rig.pane()
    const { id, events } = await rig.ready(pane)
    const promptId = await rig.start(id, events, "sleep 100")
    await waitUntil("sleep in the foreground", () => pane.files.foreground() === "sleep")
    await rig.world.tmux("copy-mode", "-t", pane.paneId)
    const copy = await expectNothingReached([rig.world], () =>
      codeOf(rig.backend.terminal.interrupt(id, promptId))
    )
    expect(copy).toBe("session_not_ready")
    await rig.world.tmux("send-keys", "-t", pane.paneId, "-X", "cancel")

    const other = await rig.world.split(pane)
    await rig.world.tmux("set-window-option", "-t", pane.paneId, "synchronize-panes", "on")
    const sync = await expectNothingReached([rig.world], () =>
      codeOf(rig.backend.terminal.interrupt(id, promptId))
    )
    expect(sync).toBe("session_not_ready")
    await rig.world.tmux("set-window-option", "-t", pane.paneId, "synchronize-panes", "off")
    // Still running and still ours: the refusals changed nothing.
    expect(await run(rig.backend.terminal.interrupt(id, promptId))).toBe("sent")
    await events.next("CommandEnd")
    expect(other.files.recorder.bytes().includes(0x03)).toBe(false)
  })

  it("refuses a dead pane and a killed pane (session_not_found), and TermPilot's own pane (session_hosts_client)", async () => {
    const dying = await rig.pane()
    await rig.world.tmux("set-window-option", "-t", dying.paneId, "remain-on-exit", "on")
    const dead = await rig.ready(dying)
    const deadPrompt = await rig.start(dead.id, dead.events, "sleep 100")
    process.kill(dying.pid, "SIGKILL")
    await waitDead(dying)
    const deadCode = await expectNothingReached([rig.world], () =>
      codeOf(rig.backend.terminal.interrupt(dead.id, deadPrompt))
    )
    expect(deadCode).toBe("session_not_found")

    const killed = await rig.pane()
    const gone = await rig.ready(killed)
    const gonePrompt = await rig.start(gone.id, gone.events, "sleep 100")
    await rig.world.tmux("kill-pane", "-t", killed.paneId)
    const code = await expectNothingReached([rig.world], () =>
      codeOf(rig.backend.terminal.interrupt(gone.id, gonePrompt))
    )
    expect(code).toBe("session_not_found")

    const mine = await rig.pane()
    const own = await rig.extraBackend({ ownPane: { socket: rig.world.socket, pane: mine.paneId } })
    const { id } = await rig.ready(mine, own)
    const ownCode = await expectNothingReached([rig.world], () => codeOf(own.terminal.interrupt(id, "1")))
    expect(ownCode).toBe("session_hosts_client")
  })

  it("sends at most one ETX per call when the command ends right at the interrupt, and says sent only when it did", async () => {
    // One pane per trial: an ETX that reached the next prompt makes bash draw yet another one.
    for (let trial = 0; trial < 10; trial++) {
      const pane = await rig.pane()
      const { id, events } = await rig.ready(pane)
      const mark = pane.files.recorder.mark()
      const promptId = await rig.start(id, events, "sleep 0.1")
      // Aim at the command's end: a little before, at, or after it.
      await new Promise((r) => setTimeout(r, 70 + (trial % 5) * 10))
      const check = await run(rig.backend.terminal.interrupt(id, promptId))
      expect(["sent", "ended"]).toContain(check)
      // Its end mark, as a rule. An ETX that lands in the instant after sleep exits interrupts
      // bash's PROMPT_COMMAND itself (the shell is the foreground then), which can leave that
      // prompt without its D: the pane is then in doubt until its next prompt, and no end comes.
      // What this test counts, the ETX bytes, is fenced below either way.
      await events.next("CommandEnd", 3_000).catch(() => undefined)
      const [bytes] = await arrived([pane], [mark])
      const sentEtx = [...(bytes ?? "")].filter((c) => c === "\x03").length
      expect(sentEtx, `trial ${trial}: ${check}`).toBe(check === "sent" ? 1 : 0)
    }
  })
})

/** Until tmux reports the pane dead. */
const waitDead = async (pane: WorldPane) => {
  for (let i = 0; i < 200; i++) {
    if ((await pane.world.format(pane.paneId, "#{pane_dead}")) === "1") return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`${pane.paneId} did not die`)
}
