/**
 * End to end over real tmux: the cross-process claim (`@termpilot_claim`) as another TermPilot
 * process would leave it. A claim of a live process elsewhere refuses run_command, send_keys and
 * interrupt_command with `session_claimed` and shows the pane `busy` in every listing; a claim of
 * a process that died (its pid gone, or its pid now another process's) is taken over; a value no
 * TermPilot writes refuses (fail closed); and this process's own claim is released when its
 * command's prompt comes back. Every refusal is proven from the panes' input recorders. (Several
 * real processes on one pane: MultiProcess.test.ts.)
 */
import { spawn, spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { hostname } from "node:os"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { formatClaim } from "../../src/domain/ClaimValue.js"
import { expectRejected, listed, runCommand, waitForReadiness } from "../support/E2eHelpers.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig

beforeAll(async () => {
  // The person accepts every approval, so send_keys reaches the claim.
  rig = await openTmuxRig({ elicit: async () => ({ action: "accept", content: { approve: true } }) })
})

afterAll(async () => {
  await rig?.close()
})

const host = hostname().replace(/[^A-Za-z0-9_-]/g, "_")
const startOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1")
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!
}
const claimOf = (pane: RigPane) => rig.world.format(pane.paneId, "#{@termpilot_claim}").then((v) => v.trim())
const setClaim = (pane: RigPane, value: string) =>
  rig.world.tmux("set", "-p", "-t", pane.paneId, "@termpilot_claim", value)

/** Every typing tool on `pane`: refused with `code`, nothing reaching any pane. */
const everyToolRefused = async (pane: RigPane, code: string) => {
  const run = await expectNothingReached(
    rig.worlds,
    () => runCommand(rig.mcp, { session_id: pane.id, command: "echo MUST-NOT-RUN", timeout_seconds: 5 }),
    "run_command on a claimed pane"
  )
  expectRejected(run, code)
  expect(run.data.message).toContain("Nothing was sent")
  const keys = await expectNothingReached(
    rig.worlds,
    () =>
      rig.mcp.client.callTool({
        name: "send_keys",
        arguments: { session_id: pane.id, keys: [{ text: "y" }] }
      }),
    "send_keys on a claimed pane"
  )
  expect(keys.isError).toBe(true)
  expect(JSON.stringify(keys.content)).toContain(code)
}

describe("a pane claimed by another TermPilot process", () => {
  it("alive: every tool refuses with session_claimed, the listing says busy; free again once released", async () => {
    const pane = await rig.pane()
    // A live process of this host stands in for the other TermPilot (pid and start time match).
    const other = spawn("sleep", ["60"], { stdio: "ignore" })
    try {
      const pid = other.pid!
      const value = formatClaim({ host, pid, start: startOf(pid), nonce: "0123456789abcdef", at: Date.now() })
      await setClaim(pane, value)
      expect((await listed(rig.mcp, pane.id)).execution_readiness).toBe("busy")
      const run = await expectNothingReached(
        rig.worlds,
        () => runCommand(rig.mcp, { session_id: pane.id, command: "echo MUST-NOT-RUN", timeout_seconds: 5 }),
        "run_command on a pane another process claimed"
      )
      expectRejected(run, "session_claimed")
      expect(run.data.message).toContain(`pid ${pid}`)
      await everyToolRefused(pane, "session_claimed")
      expect(await claimOf(pane), "the other process's claim is left alone").toBe(value)
      // The other process releases it: the pane is the person's again.
      await setClaim(pane, "")
      await waitForReadiness(rig.mcp, pane.id, "ready")
      const after = await runCommand(rig.mcp, {
        session_id: pane.id,
        command: "echo free",
        timeout_seconds: 10
      })
      expect(after.data).toMatchObject({ status: "completed", output: "free" })
    } finally {
      other.kill("SIGKILL")
    }
  })

  it("dead (its pid is gone): the claim is taken over and the command runs", async () => {
    const pane = await rig.pane()
    const gone = spawnSync("true").pid
    await setClaim(pane, formatClaim({ host, pid: gone, start: "12345", nonce: "deadbeefdeadbeef", at: 1 }))
    await waitForReadiness(rig.mcp, pane.id, "ready")
    const mark = pane.files.recorder.mark()
    const result = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "echo taken-over",
      timeout_seconds: 10
    })
    expect(result.data).toMatchObject({ status: "completed", output: "taken-over" })
    expect(pane.files.recorder.textSince(mark)).toBe("echo taken-over\r")
    // Released again at the command's prompt: nobody holds the pane.
    await waitForReadiness(rig.mcp, pane.id, "ready")
    expect(await claimOf(pane)).toBe("")
  })

  it("dead (its pid now belongs to a process started at another time): taken over", async () => {
    const pane = await rig.pane()
    await setClaim(pane, formatClaim({ host, pid: 1, start: "999999999", nonce: "feedfacefeedface", at: 1 }))
    const result = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "echo reused-pid",
      timeout_seconds: 10
    })
    expect(result.data).toMatchObject({ status: "completed", output: "reused-pid" })
  })

  it("a value no TermPilot writes: refused (fail closed), told who holds it", async () => {
    const pane = await rig.pane()
    await setClaim(pane, "somebody-else")
    expect((await listed(rig.mcp, pane.id)).execution_readiness).toBe("busy")
    await everyToolRefused(pane, "session_claimed")
    await setClaim(pane, "")
  })
})

describe("this process's own claim", () => {
  it("is held while its command runs and released when the prompt comes back", async () => {
    const pane = await rig.pane()
    const running = runCommand(rig.mcp, {
      session_id: pane.id,
      command: "sleep 1; echo held",
      timeout_seconds: 10
    })
    await waitForReadiness(rig.mcp, pane.id, "busy")
    const held = await claimOf(pane)
    expect(held).toMatch(new RegExp(`^tp1\\.${host}\\.${process.pid}\\.`))
    expect((await running).data).toMatchObject({ status: "completed", output: "held" })
    await waitForReadiness(rig.mcp, pane.id, "ready")
    expect(await claimOf(pane)).toBe("")
  })

  it("is given back when TermPilot shuts down while its command still runs", async () => {
    const pane = await rig.pane()
    const second = await openTmuxRig({ worlds: [rig.world] })
    try {
      await waitForReadiness(second.mcp, pane.id, "ready")
      const running = runCommand(second.mcp, { session_id: pane.id, command: "sleep 3", timeout_seconds: 1 })
      expect((await running).data).toMatchObject({ status: "timed_out", sent: true })
      expect(await claimOf(pane)).toMatch(/^tp1\./)
    } finally {
      await second.closeTermPilot()
    }
    expect(await claimOf(pane)).toBe("")
  })
})
