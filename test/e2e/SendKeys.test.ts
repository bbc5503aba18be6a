/**
 * End to end on the fake iTerm2 (real bash in PTYs), through the real MCP SDK client: send_keys
 * types into a program that is not at a prompt — a `read -p` question, `less` — only after the
 * person accepted it in the elicitation dialog, whatever the approval policy; every other answer
 * types nothing (the fake's SendText ledger is every byte iTerm2 was asked to type). Read-only
 * mode lists no send_keys and asks nothing.
 */

import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_APPROVAL_CONFIG } from "../../src/domain/ApprovalPolicy.js"
import { toolRegistry } from "../../src/tools/Registry.js"
import {
  awaitAuditLines,
  commandResult,
  expectNothingSent,
  readTerminal,
  runCommand
} from "../support/E2eHelpers.js"
import { call, type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

let answer: (request: ElicitRequest) => Promise<ElicitResult> = async () => ({ action: "decline" })
const asked: Array<string> = []
const elicit = async (request: ElicitRequest) => {
  asked.push(request.params.message)
  return answer(request)
}

let dir: string
let rig: FakeIterm2Rig
let readOnly: FakeIterm2Rig
let incapable: FakeIterm2Rig

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tp-e2e-keys-"))
  // Policy 'never' (the default): run_command does not ask, send_keys still does.
  rig = await openFakeIterm2Rig({ elicit, auditPath: join(dir, "audit.jsonl") })
  readOnly = await openFakeIterm2Rig({
    elicit,
    config: { readOnly: true },
    server: { tools: toolRegistry({ readOnly: true }) }
  })
  // Asked only in the client (askIn 'client'): without elicitation there is nowhere to ask.
  incapable = await openFakeIterm2Rig({
    config: { approval: { ...DEFAULT_APPROVAL_CONFIG, askIn: "client" } }
  })
})

afterAll(async () => {
  await rig?.close()
  await readOnly?.close()
  await incapable?.close()
  rmSync(dir, { recursive: true, force: true })
})

const sendKeys = (r: FakeIterm2Rig, args: Record<string, unknown>) => call(r.mcp, "send_keys", args)

/** A session whose shell waits in `read -p 'continue? [y/N] '` (started by run_command). */
const question = async (r: FakeIterm2Rig) => {
  const s = await r.world.createWindow()
  const started = await runCommand(r.mcp, {
    session_id: s.sessionId,
    command: `read -r -p 'continue? [y/N] ' a; echo "got=$a"`,
    wait_for_completion: false
  })
  expect(started.data.status).toBe("submitted")
  await r.world.waitFor(s.sessionId, () => r.world.screenText(s.sessionId).includes("continue? [y/N]"))
  return { sessionId: s.sessionId, requestId: started.data.request_id, mark: r.world.ledger.size }
}

const YES = [{ text: "y" }, { key: "Enter" }]

describe("send_keys", () => {
  it("answers a read -p [y/N] question after an accept: exactly 'y' + CR typed, the program reads it", async () => {
    const { world, mcp } = rig
    const q = await question(rig)
    answer = async () => ({ action: "accept" })
    asked.length = 0
    const sent = await sendKeys(rig, { session_id: q.sessionId, keys: YES })
    expect(sent.isError, JSON.stringify(sent.data)).toBe(false)
    expect(sent.data).toMatchObject({ session_id: q.sessionId, keys: '"y" Enter', sent: true })
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain('»"y" Enter«')
    expect(asked[0]).toContain("send_keys always needs approval")
    expect(world.ledger.all().slice(q.mark)).toEqual([
      expect.objectContaining({ session: q.sessionId, text: "y\r", suppress_broadcast: true })
    ])
    const done = await commandResult(mcp, { request_id: q.requestId, wait_seconds: 10 })
    expect(done.data).toMatchObject({ status: "completed", exit_code: 0, output: "continue? [y/N] y\ngot=y" })
    const since = await readTerminal(mcp, { session_id: q.sessionId, since: sent.data.cursor })
    expect(since.data.content).toContain("got=y")
    const lines = await awaitAuditLines(join(dir, "audit.jsonl"), String(sent.data.request_id), 2)
    expect(lines.map((l) => [l.kind, l.outcome ?? l.keys])).toEqual([
      ["approval", "accepted"],
      ["keys", '"y" Enter']
    ])
  })

  it("decline, dismiss, a failing dialog: nothing typed, the program still waits", async () => {
    const { world, mcp } = rig
    const q = await question(rig)
    const outcomes: ReadonlyArray<readonly [() => Promise<ElicitResult>, string]> = [
      [async () => ({ action: "decline" }), "declined_by_user"],
      [async () => ({ action: "cancel" }), "approval_timed_out"],
      [
        async () => {
          throw new Error("no dialog")
        },
        "approval_unavailable"
      ]
    ]
    for (const [reply, code] of outcomes) {
      answer = reply
      const refused = await expectNothingSent(world, () =>
        sendKeys(rig, { session_id: q.sessionId, keys: YES })
      )
      expect(refused.isError).toBe(true)
      expect(refused.data.error_code).toBe(code)
    }
    const still = await commandResult(mcp, { request_id: q.requestId })
    expect(still.data.status).toBe("submitted")
    answer = async () => ({ action: "accept" })
    await sendKeys(rig, { session_id: q.sessionId, keys: [{ text: "n" }, { key: "Enter" }] })
    const done = await commandResult(mcp, { request_id: q.requestId, wait_seconds: 10 })
    expect(done.data.output).toContain("got=n")
  })

  it("quits less with q", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    const started = await runCommand(mcp, {
      session_id: s.sessionId,
      command: "seq 1 500 | less",
      wait_for_completion: false
    })
    await world.waitFor(s.sessionId, () => /^1$/m.test(world.screenText(s.sessionId)))
    answer = async () => ({ action: "accept" })
    const sent = await sendKeys(rig, { session_id: s.sessionId, keys: [{ text: "q" }] })
    expect(sent.data).toMatchObject({ keys: '"q"', sent: true })
    const done = await commandResult(mcp, { request_id: started.data.request_id, wait_seconds: 10 })
    expect(done.data).toMatchObject({ status: "completed", exit_code: 0 })
  })

  it("refuses control characters smuggled inside text, and unknown key names, asking nothing", async () => {
    const { world } = rig
    const s = await world.createWindow()
    asked.length = 0
    for (const keys of [
      [{ text: "y\r" }],
      [{ text: "\u001b[201~" }],
      [{ text: "a\u200bb" }],
      [{ key: "Enter\r" }],
      [{ key: "C-ä" }],
      [],
      [{ text: "y", key: "Enter" }]
    ]) {
      const refused = await expectNothingSent(world, () => sendKeys(rig, { session_id: s.sessionId, keys }))
      expect(refused.data.error_code, JSON.stringify(keys)).toBe("invalid_request")
    }
    expect(asked).toEqual([])
  })

  it("a client without elicitation: approval_unavailable naming the setting; nothing typed", async () => {
    const q = await question(incapable)
    const refused = await expectNothingSent(incapable.world, () =>
      sendKeys(incapable, { session_id: q.sessionId, keys: YES })
    )
    expect(refused.data.error_code).toBe("approval_unavailable")
    expect(String(refused.data.message)).toContain("sendKeysWithoutApproval")
  })

  it("read-only mode lists no send_keys and asks nothing", async () => {
    const { world, mcp } = readOnly
    const s = await world.createWindow()
    asked.length = 0
    const listed = await mcp.client.listTools()
    expect(listed.tools.map((t) => t.name)).not.toContain("send_keys")
    await readTerminal(mcp, { session_id: s.sessionId })
    await call(mcp, "list_sessions", {})
    await expectNothingSent(world, () =>
      expect(sendKeys(readOnly, { session_id: s.sessionId, keys: YES })).rejects.toThrow(
        /Unknown tool: send_keys/
      )
    )
    expect(asked).toEqual([])
  })
})
