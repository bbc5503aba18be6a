/**
 * Property-based fuzzing of nine of the ten tools (all but wait_for_output, whose valid calls wait)
 * through the real MCP client (InMemoryTransport) against the fake iTerm2 with real shells: 18,000
 * generated calls. Every session in the world is unable to take a command (no shell integration,
 * busy, text typed), so nothing may ever be typed; two of them hold commands the person ran, so
 * list_commands lists real command_ids and read_command_output reads them (forged or edited ids
 * are invalid_request). Properties: the server always answers (with results that match the
 * published outputSchema), invalid arguments are invalid_request, valid ones get the contract's
 * outcome, and the SendText ledger stays empty.
 */
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_APPROVAL_CONFIG } from "../../src/domain/ApprovalPolicy.js"
import type { FakeIterm2Rig } from "../support/FakeIterm2Backend.js"
import { openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"
import { argsFor, cursors } from "./arbitraries.js"
import { issuedCommandIds, verdict } from "./oracle.js"
import { call, expectHealthy, SHORT_TIMEOUTS, type ToolResult } from "./support.js"

/** Calls per fast-check run (issued concurrently) and runs per tool: 9 × 200 × 10 = 18,000 calls. */
const BATCH = 10
const RUNS_PER_TOOL = Number(process.env.FUZZ_RUNS ?? 200)

const REJECTED_BEFORE_SEND = [
  "session_not_found",
  "shell_integration_required",
  "session_not_ready",
  "command_in_flight"
]

let rig: FakeIterm2Rig
let sessionIds: ReadonlyArray<string> = []
/** request_ids the server handed out (rejected runs), so get_command_result also sees real ids. */
const requestIds: Array<string> = []
let calls = 0
/** What the setup's list_commands showed of each command, and its whole output (read once, unbounded). */
const listedCommands = new Map<
  string,
  { readonly outputAvailable: boolean; readonly status: unknown; readonly whole: Record<string, unknown> }
>()
/** Verdicts seen per tool, so the suite can show that valid calls really reached the backend. */
const tally = new Map<string, Record<string, number>>()

beforeAll(async () => {
  // Approvals asked only in the client (askIn 'client'), which declares no elicitation: nothing can
  // be approved, so every valid send_keys is refused at once (iTerm2's alert would wait for a person).
  rig = await openFakeIterm2Rig({
    settings: { ...SHORT_TIMEOUTS, requestTimeoutMs: 5_000 },
    config: { approval: { ...DEFAULT_APPROVAL_CONFIG, askIn: "client" } }
  })
  const plain = await rig.world.createWindow({ integration: false, title: "no-integration" })
  const busy = await rig.world.createWindow({ title: "busy" })
  const typed = await rig.world.createWindow({ title: "typed" })
  // Commands the person ran (their output kept), then the busy one still running.
  await rig.world.runAsUser(busy.sessionId, "printf 'fuzz-one\\nfuzz-two\\n'")
  await rig.world.runAsUser(typed.sessionId, "echo fuzz-typed")
  rig.world.type(busy.sessionId, "sleep 600\r")
  await rig.world.waitFor(busy.sessionId, (s) => !s.atPrompt())
  rig.world.type(typed.sessionId, "typed-by-the-user")
  await rig.world.waitFor(typed.sessionId, (s) => s.screen.screenText().includes("typed-by-the-user"))
  sessionIds = [plain.sessionId, busy.sessionId, typed.sessionId]
  // The SDK client validates every structuredContent against the outputSchema it listed.
  await rig.mcp.client.listTools()
  for (const id of sessionIds)
    cursors.push((await call(rig.mcp, "read_terminal", { session_id: id })).data.cursor as string)
  for (const id of sessionIds) {
    const listing = await call(rig.mcp, "list_commands", { session_id: id, limit: 200 })
    expect(listing.isError, JSON.stringify(listing.data)).toBe(false)
    const commands = listing.data.commands as Array<Record<string, unknown>>
    issuedCommandIds.set(
      id,
      commands.map((c) => c.command_id as string)
    )
    for (const c of commands) {
      const whole = await call(rig.mcp, "read_command_output", {
        session_id: id,
        command_id: c.command_id,
        max_lines: 2000,
        max_chars: 131072,
        from: "head"
      })
      expect(whole.isError, JSON.stringify(whole.data)).toBe(false)
      listedCommands.set(c.command_id as string, {
        outputAvailable: c.output_available === true,
        status: c.status,
        whole: whole.data
      })
    }
  }
  // Shell integration proves the person's commands: printf (finished) and sleep (running) in busy,
  // echo in typed; the session without it lists nothing. Their outputs read whole, unbounded.
  const [printf, sleep] = issuedCommandIds.get(busy.sessionId) ?? []
  expect([plain, busy, typed].map((s) => issuedCommandIds.get(s.sessionId)?.length)).toEqual([0, 2, 1])
  expect(listedCommands.get(printf!)).toMatchObject({
    status: "finished",
    whole: { output: "fuzz-one\nfuzz-two" }
  })
  expect(listedCommands.get(sleep!)).toMatchObject({ status: "running", whole: { output: "" } })
}, 60_000)

afterAll(async () => {
  await rig?.close()
})

/** Real ids, their near misses (case, prefix, padding), iTerm2's keywords "active"/"all", random text. */
const sessionIdArb = () =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...sessionIds) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...sessionIds), fc.constantFrom("lower", "prefix", "pad", "cut"))
        .map(([id, how]) =>
          how === "lower"
            ? id.toLowerCase()
            : how === "prefix"
              ? `w0t0p0:${id}`
              : how === "pad"
                ? `${id} `
                : id.slice(1)
        )
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("active", "all", "w0t0p0", "00000000-0000-0000-0000-000000000000")
    },
    { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) }
  )

const requestIdArb = () =>
  fc.oneof(
    fc.nat().map((i) => requestIds[i % Math.max(requestIds.length, 1)] ?? "0".repeat(32)),
    fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 32, maxLength: 32 }),
    fc.string({ minLength: 1, maxLength: 40 })
  )

const idsFor = (tool: string) =>
  tool === "get_command_result" || tool === "interrupt_command" ? requestIdArb() : sessionIdArb()

/** One of the last 200 request_ids handed out (the server keeps 256), so still known to it. */
const isRecentRequest = (id: unknown): boolean => {
  const at = requestIds.lastIndexOf(id as string)
  return at !== -1 && at >= requestIds.length - 200
}

/** What a call with valid arguments must produce in this world. */
const expectValidOutcome = (tool: string, args: Record<string, unknown>, result: ToolResult) => {
  const { data } = result
  switch (tool) {
    case "list_sessions":
      expect(result.isError).toBe(false)
      expect((data.sessions as Array<unknown>).length).toBe(sessionIds.length)
      return
    case "get_current_session":
      expect(result.isError).toBe(false)
      expect(sessionIds).toContain(data.session_id)
      return
    case "read_terminal":
      if (sessionIds.includes(args.session_id as string)) {
        expect(result.isError).toBe(false)
        expect(data.session_id).toBe(args.session_id)
      } else {
        expect(data.error_code).toBe("session_not_found")
      }
      return
    case "list_commands": {
      const listing = issuedCommandIds.get(args.session_id as string)
      if (listing === undefined) {
        expect(data.error_code).toBe("session_not_found")
        return
      }
      // The world stands still: the same commands, only those after `since`, the newest `limit`.
      expect(result.isError).toBe(false)
      expect(data.session_id).toBe(args.session_id)
      const after = args.since === undefined ? 0 : listing.indexOf(args.since as string) + 1
      const ids = (data.commands as Array<Record<string, unknown>>).map((c) => c.command_id)
      expect(ids).toEqual(listing.slice(after).slice(-((args.limit as number | undefined) ?? 20)))
      return
    }
    case "read_command_output": {
      // A valid call names a command_id listed for this very session.
      const listed = listedCommands.get(args.command_id as string)!
      if (!listed.outputAvailable) {
        expect(data.error_code).toBe("output_unavailable")
        return
      }
      expect(result.isError).toBe(false)
      expect({ session_id: data.session_id, command_id: data.command_id }).toEqual({
        session_id: args.session_id,
        command_id: args.command_id
      })
      expect(data.status).toBe(listed.status)
      expect(data.total_output_lines).toBe(listed.whole.total_output_lines)
      const output = data.output as string
      expect(data.line_count).toBeLessThanOrEqual((args.max_lines as number | undefined) ?? 200)
      expect([...output].length).toBeLessThanOrEqual((args.max_chars as number | undefined) ?? 32768)
      // Bounded or not, what comes back is a piece of the command's output, never anything else.
      expect(listed.whole.output as string).toContain(output)
      const fromStart =
        args.from === undefined || args.from === "tail" || args.from === "head" || args.from === 0
      if (fromStart && data.truncated === false) expect(output).toBe(listed.whole.output)
      return
    }
    case "run_command":
      expect({ status: data.status, sent: data.sent }).toEqual({ status: "rejected", sent: false })
      expect(REJECTED_BEFORE_SEND).toContain(data.error_code)
      // Concurrent calls in a batch may name the same id: the later ones see command_in_flight.
      if (sessionIds.includes(args.session_id as string))
        expect(data.error_code).not.toBe("session_not_found")
      else expect(["session_not_found", "command_in_flight"]).toContain(data.error_code)
      requestIds.push(data.request_id as string)
      return
    case "interrupt_command":
      // Every request this world ever made was refused: nothing runs, so nothing is interrupted.
      if (isRecentRequest(args.request_id)) {
        expect(data).toMatchObject({ status: "rejected", sent: false, interrupt_sent: false })
      } else if (!requestIds.includes(args.request_id as string)) {
        expect(data.error_code).toBe("request_not_found")
      }
      return
    case "send_keys":
      // This client declares no elicitation: a valid call on a real session cannot be approved.
      expect(["approval_unavailable", "session_not_found"]).toContain(data.error_code)
      return
    case "get_command_result":
      // The server keeps the last 256 results; older ids may be forgotten (request_not_found).
      if (isRecentRequest(args.request_id)) {
        expect({ status: data.status, sent: data.sent }).toEqual({ status: "rejected", sent: false })
      } else if (!requestIds.includes(args.request_id as string)) {
        expect(data.error_code).toBe("request_not_found")
      }
      return
  }
}

const check = (tool: string, args: Record<string, unknown> | undefined, result: ToolResult) => {
  const expected = verdict(tool, args)
  const counts = tally.get(tool) ?? { valid: 0, invalid: 0, either: 0 }
  counts[expected] = (counts[expected] ?? 0) + 1
  tally.set(tool, counts)
  const why = `${tool}(${describeArgs(args)}) → ${JSON.stringify(result.data).slice(0, 300)}`
  if (expected === "invalid") {
    expect(result.isError, why).toBe(true)
    expect(result.data.error_code, why).toBe("invalid_request")
  } else if (expected === "valid") {
    expect(result.data.error_code, why).not.toBe("invalid_request")
    try {
      expectValidOutcome(tool, args ?? {}, result)
    } catch (error) {
      throw new Error(`${why}\n${String(error)}`)
    }
  }
  if (result.data.sent !== undefined) expect(result.data.sent, why).toBe(false)
}

const describeArgs = (args: unknown): string => {
  const text = JSON.stringify(args, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v))
  return text === undefined ? "undefined" : text.length > 200 ? `${text.slice(0, 200)}…` : text
}

const TAKES_NO_ARGUMENTS = new Set(["list_sessions", "get_current_session"])
const TOOLS = [
  "list_sessions",
  "get_current_session",
  "read_terminal",
  "list_commands",
  "read_command_output",
  "run_command",
  "get_command_result",
  "interrupt_command",
  "send_keys"
]

describe("fuzzing nine tools (all but wait_for_output)", () => {
  it("the world's sessions all refuse a command (the fixture cannot type)", async () => {
    for (const id of sessionIds) {
      const result = await call(rig.mcp, "run_command", { session_id: id, command: "true" })
      expect({ status: result.data.status, sent: result.data.sent }).toEqual({
        status: "rejected",
        sent: false
      })
    }
    expect(rig.world.ledger.size).toBe(0)
  })

  for (const tool of TOOLS) {
    it(`${tool}: ${RUNS_PER_TOOL * BATCH} generated calls; invalid → invalid_request, valid → the contract's outcome, nothing typed`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(argsFor(tool, idsFor(tool)), { minLength: BATCH, maxLength: BATCH }),
          async (batch) => {
            const results = await Promise.all(
              batch.map((args) => call(rig.mcp, tool, args as Record<string, unknown>))
            )
            calls += results.length
            for (const [i, args] of batch.entries()) check(tool, args, results[i]!)
            expect(rig.world.ledger.size).toBe(0)
          }
        ),
        { numRuns: RUNS_PER_TOOL, endOnFailure: true }
      )
      await expectHealthy(rig)
      // Both sides of the oracle were exercised: a real share of calls was valid and reached iTerm2.
      const counts = tally.get(tool)!
      console.log(`fuzz ${tool}: ${JSON.stringify(counts)}`)
      expect(counts.valid).toBeGreaterThanOrEqual(RUNS_PER_TOOL * BATCH * 0.1)
      if (tool !== "list_sessions" && tool !== "get_current_session")
        expect(counts.invalid).toBeGreaterThanOrEqual(RUNS_PER_TOOL * BATCH * 0.1)
    }, 240_000)
  }

  it("arguments that are not an object are refused (JSON-RPC error or invalid_request), nothing typed, server keeps answering", async () => {
    const runs = fc.sample(
      fc.oneof(
        fc.array(fc.anything(), { maxLength: 3 }),
        fc.string(),
        fc.double(),
        fc.boolean(),
        fc.constant(null)
      ),
      100
    )
    for (const [i, args] of runs.entries()) {
      const tool = TOOLS[i % TOOLS.length]!
      const outcome = await rig.mcp.client
        .callTool({ name: tool, arguments: args as never })
        .then((r) => ({
          error_code: (r.structuredContent as Record<string, unknown> | undefined)?.error_code
        }))
        .catch((e: unknown) => ({ error_code: `rpc:${(e as { code?: number }).code}` }))
      // The SDK refuses a non-object `arguments` before our code runs; it answers -32603 (its
      // schema check throws) rather than -32602. Either way nothing runs.
      const allowed: Array<unknown> = ["invalid_request", "rpc:-32602", "rpc:-32603"]
      if (args === null && TAKES_NO_ARGUMENTS.has(tool)) allowed.push(undefined) // null may count as absent
      expect(allowed, `${tool}(${describeArgs(args)})`).toContain(outcome.error_code)
      calls++
    }
    expect(rig.world.ledger.size).toBe(0)
    await expectHealthy(rig)
  })

  it("made at least 10,000 calls in total and typed nothing", () => {
    expect(calls).toBeGreaterThanOrEqual(TOOLS.length * RUNS_PER_TOOL * BATCH)
    expect(rig.world.ledger.size).toBe(0)
  })
})
