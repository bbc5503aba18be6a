/**
 * End to end on the fake iTerm2 (real bash in PTYs): two independent TermPilot instances — two MCP
 * servers, each with its own backend layers and its own connection to the same fake iTerm2, as two
 * MCP clients' `termpilot` processes would be — share the sessions. For each session exactly one
 * run_command is typed at a time across both (the fake's SendText ledger says what was typed, not
 * TermPilot); the other is `rejected`, `sent: false`, `session_claimed`. While one instance's
 * command runs (its claim, the session variable `user.termpilot_claim`), the other lists the session
 * `busy` and refuses run_command and send_keys; a claim whose holder died is taken over; a claim
 * TermPilot did not write refuses; an instance that shuts down releases what it holds.
 */
import { spawnSync } from "node:child_process"
import type { ElicitResult } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { formatClaim, parseClaim } from "../../src/domain/ClaimValue.js"
import { mainLayerWith } from "../../src/layers/app/MainLive.js"
import { ownClaim } from "../../src/layers/backends/ClaimHolder.js"
import { FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import { FakeWorld } from "../fakes/iterm2/FakeWorld.js"
import { appConfigFor } from "../support/AppConfigFixture.js"
import {
  type CommandView,
  expectNothingSent,
  expectRejected,
  interruptCommand,
  listed,
  runCommand,
  waitForStart
} from "../support/E2eHelpers.js"
import { call, fakeSettings } from "../support/FakeIterm2Backend.js"
import { type McpHarness, openMcpHarness } from "../support/McpHarness.js"

const CLAIM = "user.termpilot_claim"
const ROUNDS = 20

let world: FakeWorld
let server: FakeIterm2Server
/** Two TermPilot instances over two connections to the one fake iTerm2. */
let a: McpHarness
let b: McpHarness

const accept = async (): Promise<ElicitResult> => ({ action: "accept" })

/** One more TermPilot instance on the fake (its own layers, its own connection). */
const instance = () =>
  openMcpHarness(mainLayerWith(appConfigFor(fakeSettings(server.socketPath))), {}, accept)

beforeAll(async () => {
  world = new FakeWorld()
  server = await FakeIterm2Server.start({ handler: world.handler, allowAll: true })
  a = await instance()
  b = await instance()
})

afterAll(async () => {
  await a?.close()
  await b?.close()
  await server?.close()
  await world?.dispose()
})

/** The claim variable of a session as iTerm2 (the fake) holds it: its JSON, or undefined when unset. */
const claimOf = (sessionId: string): string | undefined => world.lookup(sessionId)?.userVars.get(CLAIM)

/** Waits (bounded) until no claim stands on the session. */
const released = async (sessionId: string, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (claimOf(sessionId) !== undefined) {
    if (Date.now() > deadline) throw new Error(`claim on ${sessionId} still ${claimOf(sessionId)}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** A claim value of a TermPilot process on this host that has died (a reaped child's pid). */
const deadHolderClaim = (): string => {
  const child = spawnSync("true")
  const me = parseClaim(ownClaim())!
  return formatClaim({
    ...me,
    pid: child.pid!,
    start: "1",
    nonce: "0123456789abcdef",
    at: Date.now() - 60_000
  })
}

/** A claim value of a living TermPilot process that is neither instance (this pid, another nonce). */
const liveHolderClaim = (): string => formatClaim({ ...parseClaim(ownClaim())!, nonce: "fedcba9876543210" })

const sendKeys = (mcp: McpHarness, sessionId: string) =>
  call(mcp, "send_keys", { session_id: sessionId, keys: [{ text: "x" }] })

describe("two TermPilot processes on one iTerm2", () => {
  it(`${ROUNDS} rounds of simultaneous run_command in one session: exactly one typed each round, the other session_claimed`, async () => {
    const s = await world.createWindow()
    const wins = { a: 0, b: 0 }
    for (let round = 0; round < ROUNDS; round++) {
      await released(s.sessionId)
      await world.waitFor(s.sessionId, "prompt")
      const before = world.ledger.size
      const commandOf = (who: string) => `sleep 0.2; echo mp-${who}-${round}-$((6 * 7))`
      const [ra, rb] = await Promise.all([
        runCommand(a, { session_id: s.sessionId, command: commandOf("a"), timeout_seconds: 30 }),
        runCommand(b, { session_id: s.sessionId, command: commandOf("b"), timeout_seconds: 30 })
      ])
      const results: Array<[string, { isError: boolean; data: CommandView }]> = [
        ["a", ra],
        ["b", rb]
      ]
      const completed = results.filter(([, r]) => r.data.status === "completed")
      const refused = results.filter(([, r]) => r.data.status !== "completed")
      expect(completed, JSON.stringify(results)).toHaveLength(1)
      const [winner, won] = completed[0]!
      const [loser, lost] = refused[0]!
      expectRejected(lost, "session_claimed")
      expect(lost.data.message).toContain("another TermPilot process")
      // The completed result carries its own command's output, not the other's.
      expect(won.data).toMatchObject({ sent: true, exit_code: 0, output: `mp-${winner}-${round}-42` })
      // What iTerm2 was asked to type, by either connection: one command, the winner's.
      const typed = world.ledger.all().slice(before)
      expect(typed.map((e) => [e.session, e.text])).toEqual([[s.sessionId, `${commandOf(winner)}\r`]])
      // What the real shell received: the winner's command, never the loser's.
      const screen = world.screenText(s.sessionId)
      expect(screen).toContain(`mp-${winner}-${round}-42`)
      expect(screen).not.toContain(`mp-${loser}-${round}-`)
      wins[winner as "a" | "b"]++
    }
    expect(wins.a + wins.b).toBe(ROUNDS)
  })

  it("while A's command runs, B lists the session busy and its run_command and send_keys are session_claimed", async () => {
    const s = await world.createWindow()
    const started = await runCommand(a, {
      session_id: s.sessionId,
      command: "sleep 30; echo long-done",
      wait_for_completion: false
    })
    expect(started.data.status).toBe("submitted")
    expect(claimOf(s.sessionId)).toBeDefined()
    await waitForStart(a, started.data.request_id)
    expect((await listed(b, s.sessionId)).execution_readiness).toBe("busy")
    await expectNothingSent(world, async () => {
      expectRejected(
        await runCommand(b, { session_id: s.sessionId, command: "echo intruder" }),
        "session_claimed"
      )
      const keys = await sendKeys(b, s.sessionId)
      expect(keys.isError).toBe(true)
      expect(keys.data.error_code).toBe("session_claimed")
    })
    // A's own process holds the claim: A may interrupt its command; the claim then goes.
    const stopped = await interruptCommand(a, { request_id: started.data.request_id, wait_seconds: 10 })
    expect(stopped.data.interrupt_sent).toBe(true)
    await released(s.sessionId)
    await world.waitFor(s.sessionId, "prompt")
    const after = await runCommand(b, {
      session_id: s.sessionId,
      command: "echo b-after",
      timeout_seconds: 30
    })
    expect(after.data).toMatchObject({ status: "completed", output: "b-after" })
    await released(s.sessionId)
  })

  it("a living holder's claim on an idle session: both list it busy, and nothing is typed", async () => {
    const s = await world.createWindow()
    const live = liveHolderClaim()
    world.lookup(s.sessionId)!.userVars.set(CLAIM, JSON.stringify(live))
    for (const mcp of [a, b]) {
      expect((await listed(mcp, s.sessionId)).execution_readiness).toBe("busy")
      await expectNothingSent(world, async () => {
        expectRejected(
          await runCommand(mcp, { session_id: s.sessionId, command: "echo no" }),
          "session_claimed"
        )
        expect((await sendKeys(mcp, s.sessionId)).data.error_code).toBe("session_claimed")
      })
    }
    expect(claimOf(s.sessionId)).toBe(JSON.stringify(live))
  })

  it("a claim left by a TermPilot that died is taken over, then released", async () => {
    const s = await world.createWindow()
    const dead = deadHolderClaim()
    world.lookup(s.sessionId)!.userVars.set(CLAIM, JSON.stringify(dead))
    expect((await listed(b, s.sessionId)).execution_readiness).toBe("ready")
    const ran = await runCommand(b, {
      session_id: s.sessionId,
      command: "echo taken-over",
      timeout_seconds: 30
    })
    expect(ran.data).toMatchObject({ status: "completed", sent: true, output: "taken-over" })
    await released(s.sessionId)
    // send_keys clears a dead holder's claim too (and writes none of its own).
    world.lookup(s.sessionId)!.userVars.set(CLAIM, JSON.stringify(deadHolderClaim()))
    const keys = await sendKeys(a, s.sessionId)
    expect(keys.data).toMatchObject({ sent: true })
    expect(claimOf(s.sessionId)).toBeUndefined()
  })

  it("a claim TermPilot did not write (foreign) refuses, nothing typed, until it is cleared", async () => {
    const s = await world.createWindow()
    world.setUserVar(s.sessionId, "termpilot_claim", "held by a script")
    expect((await listed(a, s.sessionId)).execution_readiness).toBe("busy")
    await expectNothingSent(world, async () => {
      const refused = await runCommand(a, { session_id: s.sessionId, command: "echo no" })
      expectRejected(refused, "session_claimed")
      expect(refused.data.message).toContain("not a TermPilot process")
      expect((await sendKeys(b, s.sessionId)).data.error_code).toBe("session_claimed")
    })
    world.lookup(s.sessionId)!.userVars.delete(CLAIM)
    const ran = await runCommand(a, { session_id: s.sessionId, command: "echo cleared", timeout_seconds: 30 })
    expect(ran.data).toMatchObject({ status: "completed", output: "cleared" })
  })

  it("an instance that shuts down releases the claims it holds", async () => {
    const s = await world.createWindow()
    const c = await instance()
    const started = await runCommand(c, {
      session_id: s.sessionId,
      command: "sleep 30",
      wait_for_completion: false
    })
    expect(started.data.status).toBe("submitted")
    await waitForStart(c, started.data.request_id)
    expect((await listed(a, s.sessionId)).execution_readiness).toBe("busy")
    await c.close()
    expect(claimOf(s.sessionId)).toBeUndefined()
  })
})
