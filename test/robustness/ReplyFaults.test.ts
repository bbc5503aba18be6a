/**
 * Fault injection at the reply level: for each iTerm2 request a tool depends on, an error reply,
 * an empty reply and a reply slower than the request timeout. Each gives a typed error through the
 * MCP result, types nothing when the fault is before the send, and the same call works once the
 * fault is cleared. Also: a SendText whose reply is late, and a session terminated twice mid-wait.
 */
import { describe, expect, it } from "vitest"
import type { FakeFault, RequestKind } from "../fakes/iterm2/FakeIterm2Server.js"
import type { FakeIterm2Rig } from "../support/FakeIterm2Backend.js"
import {
  call,
  expectCommand,
  expectHealthy,
  expectToolError,
  type ToolResult,
  until,
  withRig
} from "./support.js"

const LATE_MS = 1_200 // > SHORT_TIMEOUTS.requestTimeoutMs (500)

interface Target {
  readonly kind: RequestKind
  readonly tool: string
  readonly args: (sessionId: string) => Record<string, unknown>
  /** Whether the tool's failure comes as a CommandResult (run_command) or a ToolError. */
  readonly command: boolean
}

const targets: ReadonlyArray<Target> = [
  { kind: "list_sessions_request", tool: "list_sessions", args: () => ({}), command: false },
  { kind: "variable_request", tool: "list_sessions", args: () => ({}), command: false },
  { kind: "focus_request", tool: "get_current_session", args: () => ({}), command: false },
  { kind: "get_buffer_request", tool: "read_terminal", args: (id) => ({ session_id: id }), command: false },
  // run_command: watch (notification), readiness (prompt), the transaction around check-and-send.
  ...(["notification_request", "get_prompt_request", "transaction_request"] as const).map((kind) => ({
    kind,
    tool: "run_command",
    args: (id: string) => ({ session_id: id, command: "echo never", timeout_seconds: 20 }),
    command: true
  }))
]

const faults: ReadonlyArray<readonly [string, FakeFault, RegExp]> = [
  ["an error reply", { error: "Not ready. This is a bug! Please report it." }, /Not ready/],
  ["an empty reply", { emptyReply: true }, /without/],
  ["a reply slower than the timeout", { delayMs: LATE_MS }, /within 500 ms/]
]

const expectFailed = (target: Target, result: ToolResult, message: RegExp) => {
  if (!target.command) return expectToolError(result, "iterm2_unavailable", message)
  expectCommand(result, { status: "error", sent: false, error_code: "iterm2_unavailable" })
  expect(result.data.message).toMatch(message)
}

/** The session is usable end to end: a harmless command completes with its own output. */
const expectRunWorks = async (rig: FakeIterm2Rig, sessionId: string, word: string) => {
  const ok = await call(rig.mcp, "run_command", { session_id: sessionId, command: `echo ${word}` })
  expectCommand(ok, { status: "completed", sent: true, error_code: null })
  expect(ok.data.output).toBe(word)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The late-transaction-begin case has its own tests below (a known bug). */
const cases = (target: Target) =>
  faults.filter(([, fault]) => !(target.kind === "transaction_request" && "delayMs" in fault))

describe.each(targets)("$kind faults through $tool", (target) => {
  it.each(cases(target))(
    "%s: typed iterm2_unavailable, nothing typed, then recovery",
    async (_what, fault, message) => {
      await withRig(async (rig) => {
        const { sessionId } = await rig.world.createWindow()
        rig.server.faultKind(target.kind, fault)
        expectFailed(target, await call(rig.mcp, target.tool, target.args(sessionId)), message)
        expect(rig.world.ledger.size).toBe(0)

        rig.server.clearFaults()
        if ("delayMs" in fault) await sleep(LATE_MS) // the late reply lands and must be ignored
        if (target.command) {
          await expectRunWorks(rig, sessionId, "recovered")
        } else {
          const again = await call(rig.mcp, target.tool, target.args(sessionId))
          expect(again.isError, JSON.stringify(again.data)).toBe(false)
          await expectRunWorks(rig, sessionId, "recovered")
        }
        expect(rig.world.ledger.size).toBe(1)
        await expectHealthy(rig, sessionId)
      })
    }
  )
})

describe("a transaction begin answered after the timeout", () => {
  const lateBegin = async (rig: FakeIterm2Rig, sessionId: string) => {
    rig.server.faultKind("transaction_request", { delayMs: LATE_MS })
    const failed = await call(rig.mcp, "run_command", { session_id: sessionId, command: "echo never" })
    expectCommand(failed, { status: "error", sent: false, error_code: "iterm2_unavailable" })
    expect(rig.world.ledger.size).toBe(0)
    rig.server.clearFaults()
    await sleep(LATE_MS) // iTerm2 gets to the begin late, and opens the transaction then
  }

  it("fails typed with nothing typed, and dropping the connection clears it", async () => {
    await withRig(async (rig) => {
      const { sessionId } = await rig.world.createWindow()
      await lateBegin(rig, sessionId)
      rig.server.dropConnections() // iTerm2 ends a connection's transaction when it closes
      await until("the drop to be noticed", () => rig.server.openConnections === 0)
      await sleep(100)
      await expectRunWorks(rig, sessionId, "after-drop")
    })
  })

  // BUG (src/layers/backends/iterm2/Connection.ts, `transaction`): when the begin times out, the
  // acquire fails so no end is ever sent, but iTerm2 still processes the late begin and keeps the
  // transaction open on that connection. Every later run_command on it then fails with
  // "iTerm2 transaction begin failed: ALREADY_IN_TRANSACTION" until the connection drops, and
  // meanwhile iTerm2 serves no other API client. Fix: on a failed/timed-out begin, send an end
  // (or close the connection).
  it("the next run_command works (no transaction is left open)", async () => {
    await withRig(async (rig) => {
      const { sessionId } = await rig.world.createWindow()
      await lateBegin(rig, sessionId)
      await expectRunWorks(rig, sessionId, "recovered")
    })
  })
})

describe("faults after the send", () => {
  it("a SendText answered after the timeout is reported as sent (it did reach the shell), then the session recovers", async () => {
    await withRig(async (rig) => {
      const { sessionId } = await rig.world.createWindow()
      rig.server.faultKind("send_text_request", { delayMs: LATE_MS })
      const late = await call(rig.mcp, "run_command", { session_id: sessionId, command: "echo late" })
      // The request left: the result may not say nothing was typed.
      expectCommand(late, { status: "error", sent: true, error_code: "iterm2_unavailable" })
      expect(late.data.message).toMatch(/may or may not have reached/)
      rig.server.clearFaults()
      await until("the late SendText", () => rig.world.ledger.size === 1)
      await rig.world.waitFor(sessionId, (s) => s.atPrompt() && s.screen.screenText().includes("\nlate"))
      await expectRunWorks(rig, sessionId, "after")
      expect(rig.world.ledger.all().map((e) => e.text)).toEqual(["echo late\r", "echo after\r"])
    })
  })

  it("an error reply to SendText is reported as maybe sent, never as nothing typed", async () => {
    await withRig(async (rig) => {
      const { sessionId } = await rig.world.createWindow()
      rig.server.faultKind("send_text_request", { error: "Not ready. This is a bug!" })
      const failed = await call(rig.mcp, "run_command", { session_id: sessionId, command: "echo x" })
      expectCommand(failed, { status: "error", sent: true, error_code: "iterm2_unavailable" })
      rig.server.clearFaults()
      await expectRunWorks(rig, sessionId, "fine")
    })
  })

  it("a session terminated twice during a wait: session_lost once, and the server carries on", async () => {
    await withRig(async (rig) => {
      const doomed = await rig.world.createWindow({ title: "doomed" })
      const other = await rig.world.createWindow({ title: "other" })
      const shell = rig.world.shell(doomed.sessionId)
      const pending = call(rig.mcp, "run_command", {
        session_id: doomed.sessionId,
        command: "sleep 30",
        timeout_seconds: 60
      })
      await rig.world.waitFor(doomed.sessionId, () => rig.world.ledger.size === 1 && !shell.atPrompt(), 5_000)
      await rig.world.closeSession(doomed.sessionId, { twice: true })
      const lost = await pending
      expectCommand(lost, { status: "session_lost", sent: true, error_code: "session_lost" })
      expect(lost.data.exit_code).toBeNull()
      const polled = await call(rig.mcp, "get_command_result", { request_id: lost.data.request_id })
      expect(polled.data).toEqual(lost.data)

      await expectHealthy(rig, other.sessionId)
      const listed = await call(rig.mcp, "list_sessions")
      const ids = (listed.data.sessions as Array<{ session_id: string }>).map((s) => s.session_id)
      expect(ids).not.toContain(doomed.sessionId)
      const gone = await call(rig.mcp, "run_command", { session_id: doomed.sessionId, command: "echo no" })
      expectCommand(gone, { status: "rejected", sent: false, error_code: "session_not_found" })
      expectToolError(
        await call(rig.mcp, "read_terminal", { session_id: doomed.sessionId }),
        "session_not_found"
      )
      await expectRunWorks(rig, other.sessionId, "alive")
      expect(rig.world.ledger.all().map((e) => e.session)).toEqual([doomed.sessionId, other.sessionId])
    })
  })
})
