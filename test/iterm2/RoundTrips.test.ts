/**
 * Requests per call on the iTerm2 backend, counted by the protocol-level fake (real bash in PTYs)
 * behind the real MCP server: a run_command `true` subscribes to its session's prompts only the
 * first time on a connection, reads its ended output without a transaction and takes the next
 * prompt's start from the PROMPT notification; the answers stay exact. A new connection
 * subscribes again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import { runCommand } from "../support/E2eHelpers.js"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

let rig: FakeIterm2Rig
beforeAll(async () => {
  rig = await openFakeIterm2Rig()
})
afterAll(async () => {
  await rig?.close()
})

/** Requests by kind from request `mark` on (a transaction as `begin` / `end`). */
const kindsSince = (server: FakeIterm2Server, mark: number): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const { request } of server.requests.slice(mark)) {
    const kind = Object.keys(request)[0]!
    const name =
      request.transaction_request === undefined ? kind : request.transaction_request.begin ? "begin" : "end"
    counts[name] = (counts[name] ?? 0) + 1
  }
  return counts
}

/** Waits until `count` transaction ends arrived from `mark` on (the call's, then its claim's release). */
const settled = async (server: FakeIterm2Server, mark: number, count: number) => {
  const deadline = Date.now() + 5_000
  while ((kindsSince(server, mark).end ?? 0) < count) {
    if (Date.now() > deadline)
      throw new Error(`no ${count} transaction ends: ${JSON.stringify(kindsSince(server, mark))}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  await new Promise((resolve) => setTimeout(resolve, 50))
}

/** One run_command and every request it caused, its claim's release included. */
const counted = async (sessionId: string, command: string) => {
  const mark = rig.server.requests.length
  const result = await runCommand(rig.mcp, { session_id: sessionId, command })
  await settled(rig.server, mark, 2)
  return { result: result.data, kinds: kindsSince(rig.server, mark) }
}

/**
 * A run_command once the session's prompt subscription exists: the check and the send in one
 * transaction (begin, prompt + variables, claim written, send, end); the ended output read without
 * one (the prompt with the later prompts, then its rows when it has any); the label; the claim's
 * compare-and-clear in its own transaction. No subscription, no request for the next prompt.
 */
const STEADY = {
  begin: 2,
  end: 2,
  get_prompt_request: 2,
  list_prompts_request: 1,
  variable_request: 5,
  send_text_request: 1
}

describe("round trips of run_command (iTerm2)", () => {
  it("subscribes once per session and connection; `true` then costs 13 requests, answered exactly", async () => {
    const s = await rig.world.createWindow()
    const first = await counted(s.sessionId, "true")
    expect(first.result).toMatchObject({
      status: "completed",
      exit_code: 0,
      output: "",
      output_line_count: 0
    })
    expect(first.kinds).toEqual({ ...STEADY, notification_request: 2 })
    for (let i = 0; i < 3; i++) {
      const next = await counted(s.sessionId, "true")
      expect(next.result).toMatchObject({ status: "completed", exit_code: 0, output: "", truncated: false })
      expect(next.kinds).toEqual(STEADY)
    }
  })

  it("output is exact without a transaction: its rows read once, cut at the next prompt", async () => {
    const s = await rig.world.createWindow()
    await counted(s.sessionId, "true")
    const { result, kinds } = await counted(s.sessionId, "printf 'one\\ntwo\\nthree'; echo")
    expect(result).toMatchObject({
      status: "completed",
      exit_code: 0,
      output: "one\ntwo\nthree",
      truncated: false,
      output_line_count: 3,
      total_output_lines: 3
    })
    expect(kinds).toEqual({ ...STEADY, get_buffer_request: 1 })
  })

  it("two sessions each get their own subscription; a new connection subscribes again", async () => {
    const a = await rig.world.createWindow()
    const b = await rig.world.createWindow()
    expect((await counted(a.sessionId, "true")).kinds.notification_request).toBe(2)
    expect((await counted(b.sessionId, "true")).kinds.notification_request).toBe(2)
    expect((await counted(a.sessionId, "true")).kinds.notification_request).toBeUndefined()
    rig.server.dropConnections()
    // Once the drop is seen (as it is long before the next call, outside a test that drops and
    // calls in the same tick): the next call goes on a new connection, and subscribes there.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const again = await counted(a.sessionId, "echo after-drop")
    expect(again.result).toMatchObject({ status: "completed", exit_code: 0, output: "after-drop" })
    expect(again.kinds.notification_request).toBe(2)
    expect((await counted(b.sessionId, "true")).kinds.notification_request).toBe(2)
  })
})
