/**
 * iTerm2 alive but answering nothing (every reply held far longer than any bound here): each tool
 * call still answers by its deadline with a typed error, run_command sends nothing, and once iTerm2
 * answers again the next calls work (the suspect connection is replaced).
 */
import { describe, expect, it } from "vitest"
import type { RequestKind } from "../fakes/iterm2/FakeIterm2Server.js"
import { call, expectCommand, expectHealthy, expectToolError, type ToolResult, withRig } from "./support.js"

/** Longer than this test may run: a call that waits for a held reply fails the test. */
const HELD_MS = 120_000
const DEADLINE_MS = 1_000
/** What the calls must beat; far above DEADLINE_MS and far below the request timeout. */
const ANSWER_WITHIN_MS = 15_000

const KINDS: ReadonlyArray<RequestKind> = [
  "list_sessions_request",
  "variable_request",
  "focus_request",
  "get_buffer_request",
  "get_prompt_request",
  "transaction_request",
  "notification_request",
  "send_text_request",
  "list_prompts_request",
  "get_property_request"
]

/** The call's result, or a failure if it has not answered in ANSWER_WITHIN_MS. */
const answered = (pending: Promise<ToolResult>): Promise<ToolResult> =>
  Promise.race([
    pending,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS} ms`)), ANSWER_WITHIN_MS)
    )
  ])

describe("every tool call answers by its deadline", () => {
  it("reads and run_command answer deadline_exceeded while iTerm2 holds every reply; nothing is typed; then recovery", async () => {
    await withRig(
      async (rig) => {
        const { sessionId } = await rig.world.createWindow()
        await expectHealthy(rig, sessionId) // connected and answering
        for (const kind of KINDS) rig.server.faultKind(kind, { delayMs: HELD_MS })

        for (const [tool, args] of [
          ["read_terminal", { session_id: sessionId }],
          ["list_sessions", {}],
          ["get_current_session", {}]
        ] as const) {
          expectToolError(await answered(call(rig.mcp, tool, args)), "deadline_exceeded", /within 1 s/)
        }
        const run = await answered(
          call(rig.mcp, "run_command", { session_id: sessionId, command: "echo never" })
        )
        expectCommand(run, { status: "error", sent: false, error_code: "deadline_exceeded" })
        expect(rig.world.ledger.size).toBe(0)

        rig.server.clearFaults()
        const before = rig.server.connectionCount
        await expectHealthy(rig, sessionId)
        expect(rig.server.connectionCount).toBeGreaterThan(before) // the suspect connection was replaced
        const ok = await answered(
          call(rig.mcp, "run_command", { session_id: sessionId, command: "echo back" })
        )
        expectCommand(ok, { status: "completed", sent: true, error_code: null })
        expect(rig.world.ledger.all().map((e) => e.text)).toEqual(["echo back\r"])
      },
      { requestTimeoutMs: HELD_MS, connectTimeoutMs: 5_000 },
      { toolDeadlineMs: DEADLINE_MS }
    )
  }, 90_000)
})
