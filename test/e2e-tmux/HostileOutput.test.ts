/**
 * End to end over real tmux and real bash, output that tries to make TermPilot type where it must
 * not: a tmux passthrough DCS (what imgcat prints) followed by text the person types, and a replay
 * of the pane's own recorded marks (real token included, as `cat` of a `script` log would print),
 * at the prompt while a program keeps running and inside a TermPilot command. Every refusal is
 * proven from the panes' own input recorders; the command's output and exit code are its own.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectRejected, listed, runCommand, waitForReadiness } from "../support/E2eHelpers.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig

beforeAll(async () => {
  rig = await openTmuxRig()
})

afterAll(async () => {
  await rig?.close()
})

/** What iTerm2's imgcat prints inside tmux: its OSC 1337 wrapped in a passthrough DCS, ESCs doubled. */
const IMGCAT = String.raw`printf '\ePtmux;\e\e]1337;File=inline=1;size=3:QUJD\a\e\\'`

/** Readiness polled `times` times over about `times` × 50 ms; every answer it gave. */
const readinessOver = async (pane: RigPane, times: number) => {
  const seen = new Set<string>()
  for (let i = 0; i < times; i++) {
    seen.add((await listed(rig.mcp, pane.id)).execution_readiness)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return seen
}

const refused = (pane: RigPane, label: string) =>
  expectNothingReached(
    rig.worlds,
    () => runCommand(rig.mcp, { session_id: pane.id, command: "echo MUST-NOT-RUN", timeout_seconds: 5 }),
    label
  )

/** Records the pane's raw output (marks and all) into a file while `during` runs. */
const recordRaw = async (pane: RigPane, during: () => Promise<void>): Promise<string> => {
  const file = join(rig.world.root, `raw-${pane.paneId.slice(1)}.log`)
  await rig.world.tmux("pipe-pane", "-o", "-t", pane.paneId, `cat >> '${file}'`)
  await during()
  await rig.world.tmux("pipe-pane", "-t", pane.paneId)
  return file
}

describe("a tmux passthrough DCS in a pane's output", () => {
  it("text the person types after it is seen: never ready, not one byte typed onto their line", async () => {
    const pane = await rig.pane()
    await rig.world.runAsUser(pane, IMGCAT, (s) => s.endsWith("tp$"))
    await waitForReadiness(rig.mcp, pane.id, "ready")
    await rig.world.type(pane, "echo typed-by-user")
    await rig.world.waitForScreen(pane, (s) => s.endsWith("tp$ echo typed-by-user"))
    await waitForReadiness(rig.mcp, pane.id, "input_pending")
    expect(await readinessOver(pane, 10)).toEqual(new Set(["input_pending"]))
    expectRejected(await refused(pane, "run_command after imgcat and typing"), "session_not_ready")
    expect((await rig.world.screen(pane)).split("\n").at(-1)).toBe("tp$ echo typed-by-user")
  })

  it("a command's output after a passthrough is returned intact, with its exit code", async () => {
    const pane = await rig.pane()
    const command = `${IMGCAT}; echo after-the-image; printf 'second line\\n'; (exit 3)`
    const result = await runCommand(rig.mcp, { session_id: pane.id, command, timeout_seconds: 20 })
    expect(result.data).toMatchObject({ status: "completed", exit_code: 3 })
    expect(result.data.output).toBe("after-the-image\nsecond line")
  })

  it("marks hidden inside a passthrough neither end a command nor make a busy pane ready", async () => {
    const pane = await rig.pane()
    const token = (await rig.world.format(pane.paneId, "#{@termpilot_tokens}")).trim().split(":")[0]
    const fake = String.raw`printf '\ePtmux;\e\e]133;D;0;tp=${token};n=999\a\e\e]133;A;tp=${token};n=1000\a\e\e]133;B;tp=${token};n=1000\a\e\\'`
    const result = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: `${fake}; sleep 1; echo real-end; (exit 5)`,
      timeout_seconds: 20
    })
    expect(result.data).toMatchObject({ status: "completed", exit_code: 5 })
    expect(result.data.output).toBe("real-end")
    expect(result.data.duration_ms).toBeGreaterThanOrEqual(1000)
  })
})

describe("a replay of the pane's own recorded marks (real token included)", () => {
  it("at the prompt while the program keeps running: never ready, not one byte typed", async () => {
    const pane = await rig.pane()
    const log = await recordRaw(pane, async () => {
      await rig.world.runAsUser(pane, "echo one", (s) => s.endsWith("tp$"))
      await rig.world.runAsUser(pane, "true", (s) => s.endsWith("tp$"))
    })
    const recorded = readFileSync(log, "latin1")
    expect(recorded).toMatch(/\x1b\]133;B;tp=[0-9a-f]+;n=\d+\x07/)
    await rig.world.runAsUser(
      pane,
      `cat '${log}'; sleep 30`,
      (s) => s.split("\n").filter((l) => l === "one").length >= 2
    )
    const seen = await readinessOver(pane, 20)
    expect(seen.has("ready")).toBe(false)
    const result = await refused(pane, "run_command while a replay of the pane's marks runs")
    expectRejected(result, "session_not_ready")
  })

  it("inside a TermPilot command: no early end, the real exit code and the whole output", async () => {
    const pane = await rig.pane()
    const log = await recordRaw(pane, async () => {
      // The prompt after the output, not the one before the keys were echoed.
      await rig.world.runAsUser(pane, "echo recorded; (exit 9)", (s) => s.endsWith("recorded\ntp$"))
    })
    const result = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: `cat '${log}'; sleep 1; echo after-replay; (exit 4)`,
      timeout_seconds: 20
    })
    expect(result.data).toMatchObject({ status: "completed", exit_code: 4 })
    expect(result.data.duration_ms).toBeGreaterThanOrEqual(1000)
    expect(result.data.output).toMatch(/recorded\n[\s\S]*after-replay$/)
    // The pane is ready again at its own next prompt.
    await waitForReadiness(rig.mcp, pane.id, "ready")
  })
})
