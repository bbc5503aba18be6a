/**
 * End to end over real tmux: interrupt_command stops exactly the command TermPilot started — one
 * ETX, proven from the panes' own input recorders, to that pane only — and refuses, with nothing
 * reaching any pane, whatever it cannot verify (unknown request, never started, already over,
 * copy mode, pane gone). Progress notifications and cancellation are checked here too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  callWithProgress,
  commandResult,
  expectSteadyProgress,
  interruptCommand,
  runCommand,
  waitForReadiness,
  waitForStart
} from "../support/E2eHelpers.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import { openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig

beforeAll(async () => {
  rig = await openTmuxRig()
})

afterAll(async () => {
  await rig?.close()
})

const ETX = "\u0003"

/** A new pane of `shell` running `command` (sent by TermPilot, not waited for), its shell busy with it. */
const started = async (command: string, shell: "bash" | "fish" = "bash") => {
  const pane = await rig.pane({ shell })
  const sent = await runCommand(rig.mcp, { session_id: pane.id, command, wait_for_completion: false })
  expect(sent.data).toMatchObject({ status: "submitted", sent: true })
  await waitForReadiness(rig.mcp, pane.id, "busy")
  await waitUntil("the command's bytes in the recorder", () =>
    pane.files.recorder.textSince(0).endsWith(`${command}\r`)
  )
  // The start mark comes before the program runs: interrupt once it owns the terminal (a trap is
  // only set once the program says "armed").
  if (command.startsWith("sleep "))
    await waitUntil("sleep in the foreground", () => pane.files.foreground() === "sleep")
  if (command.includes("echo armed")) await rig.world.waitForScreen(pane, (screen) => /^armed$/m.test(screen))
  await waitForStart(rig.mcp, sent.data.request_id)
  return { pane, requestId: sent.data.request_id }
}

/** Marks every pane's recorder now; `arrived` is what each received since. */
const markAll = () => {
  const panes = rig.world.panes
  const marks = panes.map((p) => p.files.recorder.mark())
  return (pane: RigPane | (typeof panes)[number]) =>
    pane.files.recorder.textSince(marks[panes.findIndex((p) => p.paneId === pane.paneId)] ?? 0)
}

describe("interrupt_command on tmux", () => {
  it.each(["bash", "fish"] as const)(
    "%s: stops `sleep 100` with one ETX to that pane only: the command ends with exit 130",
    async (shell) => {
      const bystander = await rig.pane()
      const { pane, requestId } = await started("sleep 100", shell)
      const arrived = markAll()

      const answer = await interruptCommand(rig.mcp, { request_id: requestId, wait_seconds: 10 })
      expect(answer.isError, JSON.stringify(answer.data)).toBe(false)
      expect(answer.data).toMatchObject({
        request_id: requestId,
        session_id: pane.id,
        status: "completed",
        exit_code: 130,
        sent: true,
        interrupt_sent: true
      })
      expect(JSON.stringify(arrived(pane))).toBe(JSON.stringify(ETX))
      expect(arrived(bystander)).toBe("")
      for (const other of rig.world.panes) if (other.paneId !== pane.paneId) expect(arrived(other)).toBe("")
      const next = await runCommand(rig.mcp, { session_id: pane.id, command: "echo again" })
      expect(next.data).toMatchObject({ status: "completed", exit_code: 0, output: "again" })
    }
  )

  it("a program that ignores SIGINT is still_running after one ETX; nothing more is ever sent", async () => {
    const { pane, requestId } = await started(`bash -c 'trap "" INT; echo armed; sleep 100'`)
    const arrived = markAll()
    const answer = await interruptCommand(rig.mcp, { request_id: requestId, wait_seconds: 1 })
    expect(answer.data).toMatchObject({ status: "still_running", interrupt_sent: true, exit_code: null })
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(JSON.stringify(arrived(pane))).toBe(JSON.stringify(ETX))
    await waitForReadiness(rig.mcp, pane.id, "busy")
  })

  it("a finished command, an unknown id, a command never started: nothing reaches any pane", async () => {
    const pane = await rig.pane()
    const done = await runCommand(rig.mcp, { session_id: pane.id, command: "echo over; (exit 4)" })
    expect(done.data).toMatchObject({ status: "completed", exit_code: 4 })
    const finished = await expectNothingReached(rig.worlds, () =>
      interruptCommand(rig.mcp, { request_id: done.data.request_id, wait_seconds: 1 })
    )
    expect(finished.data).toMatchObject({ status: "completed", exit_code: 4, interrupt_sent: false })

    const unknown = await expectNothingReached(rig.worlds, () =>
      interruptCommand(rig.mcp, { request_id: "0123456789abcdef0123456789abcdef" })
    )
    expect(unknown.data).toMatchObject({ error_code: "request_not_found" })

    const open = await rig.pane()
    const sent = await runCommand(rig.mcp, {
      session_id: open.id,
      command: "echo 'never closed",
      wait_for_completion: false
    })
    expect(sent.data).toMatchObject({ status: "submitted", sent: true })
    await rig.world.waitForScreen(open, (screen) => /\n>\s*$/.test(screen))
    const never = await expectNothingReached(rig.worlds, () =>
      interruptCommand(rig.mcp, { request_id: sent.data.request_id, wait_seconds: 1 })
    )
    expect(never.isError).toBe(true)
    expect(never.data).toMatchObject({ error_code: "command_not_running" })
  })

  it("a pane in copy mode is refused (the key would go to copy mode), nothing reaches it", async () => {
    const { pane, requestId } = await started("sleep 100")
    await rig.world.tmux("copy-mode", "-t", pane.paneId)
    const refused = await expectNothingReached(rig.worlds, () =>
      interruptCommand(rig.mcp, { request_id: requestId, wait_seconds: 1 })
    )
    expect(refused.isError).toBe(true)
    expect(refused.data).toMatchObject({ error_code: "session_not_ready" })
    await rig.world.tmux("send-keys", "-t", pane.paneId, "-X", "cancel")
    const answer = await interruptCommand(rig.mcp, { request_id: requestId, wait_seconds: 10 })
    expect(answer.data).toMatchObject({ status: "completed", exit_code: 130, interrupt_sent: true })
  })

  it("a pane killed meanwhile: nothing reaches any pane, the result says session_lost", async () => {
    const { pane, requestId } = await started("sleep 100")
    await rig.world.tmux("kill-pane", "-t", pane.paneId)
    const lost = await commandResult(rig.mcp, { request_id: requestId, wait_seconds: 10 })
    expect(lost.data).toMatchObject({ status: "session_lost" })
    const answer = await expectNothingReached(rig.worlds, () =>
      interruptCommand(rig.mcp, { request_id: requestId, wait_seconds: 1 })
    )
    expect(answer.data).toMatchObject({ status: "session_lost", interrupt_sent: false })
  })
})

describe("progress and cancellation on tmux", () => {
  it("a 5 s command gives 3 to 7 increasing notifications naming the request, none after the answer", async () => {
    const pane = await rig.pane()
    await expectSteadyProgress(rig.mcp, pane.id)
  })

  it("a cancelled interrupt_command wait stops at once; the result is kept", async () => {
    const { pane, requestId } = await started(`bash -c 'trap "" INT; echo armed; sleep 2; echo outlived'`)
    const abort = new AbortController()
    const call = callWithProgress(
      rig.mcp,
      "interrupt_command",
      { request_id: requestId, wait_seconds: 30 },
      abort.signal
    )
    const outcome = call.answer.then(
      () => "answered",
      () => "rejected"
    )
    await waitUntil("the ETX in the pane", () => pane.files.recorder.textSince(0).endsWith(ETX))
    abort.abort()
    expect(await outcome).toBe("rejected")
    const done = await commandResult(rig.mcp, { request_id: requestId, wait_seconds: 10 })
    expect(done.data).toMatchObject({ status: "completed", exit_code: 0 })
    // The terminal echoes the ETX as ^C into the program's output.
    expect(done.data.output).toMatch(/^armed\n(\^C)?outlived$/)
  })
})
