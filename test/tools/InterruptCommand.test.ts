/**
 * interrupt_command through the real MCP SDK client over a RecordingBackend: the exact request
 * with its default wait reaches CommandRunner.interrupt, the result comes back observed (hygiene,
 * redaction) with an honest summary, refusals are ToolErrors, bad arguments reach nothing, and the
 * audit trail gets a command line with `interrupt_sent`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Effect, Layer } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { UNTRUSTED_TERMINAL_NOTICE } from "../../src/domain/Hygiene.js"
import { auditLogLayer } from "../../src/layers/audit/AuditLogLive.js"
import type { InterruptResult } from "../../src/services/CommandRunner.js"
import { fail } from "../../src/services/Errors.js"
import { type McpHarness, openMcpHarness } from "../support/McpHarness.js"
import {
  interruptedResult,
  makeRecordingBackend,
  type Overrides,
  SESSION_ID
} from "../support/RecordingBackend.js"

const REQUEST_ID = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"

let harness: McpHarness | undefined
const dirs: Array<string> = []
afterEach(async () => {
  await harness?.close()
  harness = undefined
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const open = async (overrides: Overrides = {}) => {
  const backend = makeRecordingBackend(overrides)
  harness = await openMcpHarness(backend.layer)
  await harness.client.listTools() // the client now validates structuredContent against outputSchema
  return { client: harness.client, backend }
}

const answering = (result: (requestId: string) => InterruptResult): Overrides => ({
  runner: { interrupt: (requestId) => Effect.succeed(result(requestId)) }
})

type Result = Awaited<ReturnType<McpHarness["client"]["callTool"]>>
const structured = (result: Result) => result.structuredContent as Record<string, unknown>
const summary = (result: Result) => (result.content as ReadonlyArray<{ text?: string }>)[0]?.text ?? ""

describe("interrupt_command", () => {
  it("hands request_id and the default wait of 5 s to the runner and reports the shell's result", async () => {
    const { client, backend } = await open(answering((id) => interruptedResult(id)))
    const result = await client.callTool({ name: "interrupt_command", arguments: { request_id: REQUEST_ID } })
    expect(backend.calls()).toEqual([
      { service: "CommandRunner", method: "interrupt", args: [REQUEST_ID, 5] }
    ])
    expect(result.isError).toBe(false)
    expect(structured(result)).toMatchObject({
      request_id: REQUEST_ID,
      status: "completed",
      exit_code: 130,
      interrupt_sent: true,
      redactions: 0
    })
    expect(summary(result).startsWith(`${UNTRUSTED_TERMINAL_NOTICE}\n`)).toBe(true)
    expect(summary(result)).toMatch(/Interrupt \(one Ctrl-C\) sent\. Command completed .* with exit code 130/)
  })

  it("passes an explicit wait through; 0 and 60 are the bounds", async () => {
    for (const wait of [0, 60, 2.5]) {
      const { client, backend } = await open(answering((id) => interruptedResult(id)))
      await client.callTool({
        name: "interrupt_command",
        arguments: { request_id: REQUEST_ID, wait_seconds: wait }
      })
      expect(backend.calls()[0]?.args).toEqual([REQUEST_ID, wait])
      await harness?.close()
      harness = undefined
    }
  })

  it("still_running: the interrupt was sent, the program has not ended, the output so far comes back", async () => {
    const { client } = await open(
      answering((id) =>
        interruptedResult(id, {
          status: "still_running",
          exit_code: null,
          finished_at: null,
          duration_ms: null,
          output: "trapped SIGINT, carrying on"
        })
      )
    )
    const result = await client.callTool({ name: "interrupt_command", arguments: { request_id: REQUEST_ID } })
    expect(result.isError).toBe(false)
    expect(structured(result)).toMatchObject({ status: "still_running", interrupt_sent: true })
    expect(summary(result)).toMatch(/sent, but the command has not ended yet/)
    expect(summary(result)).toMatch(/nothing more is sent/)
  })

  it("a command that had already finished: nothing sent, its final result", async () => {
    const { client } = await open(
      answering((id) => interruptedResult(id, { exit_code: 0, interrupt_sent: false }))
    )
    const result = await client.callTool({ name: "interrupt_command", arguments: { request_id: REQUEST_ID } })
    expect(structured(result)).toMatchObject({ status: "completed", exit_code: 0, interrupt_sent: false })
    expect(summary(result)).toMatch(/No interrupt sent\. Command completed/)
  })

  it("the output is cleaned and secrets in it redacted, like run_command's", async () => {
    const { client } = await open(
      answering((id) =>
        interruptedResult(id, { output: "\u001b[31mboom\u001b[0m\npassword=hunter2hunter2\n^C" })
      )
    )
    const result = await client.callTool({ name: "interrupt_command", arguments: { request_id: REQUEST_ID } })
    const output = String(structured(result).output)
    expect(output).not.toContain("\u001b")
    expect(output).not.toContain("hunter2hunter2")
    expect(structured(result)).toMatchObject({ redactions: 1, output_line_count: 3 })
  })

  it("a refusal from the runner is a ToolError with its code", async () => {
    for (const code of ["command_not_running", "request_not_found", "session_not_found"] as const) {
      const { client } = await open({
        runner: { interrupt: () => Effect.fail(fail(code, "Nothing was sent.")) }
      })
      const result = await client.callTool({
        name: "interrupt_command",
        arguments: { request_id: REQUEST_ID }
      })
      expect(result).toMatchObject({ isError: true, structuredContent: { error_code: code } })
      await harness?.close()
      harness = undefined
    }
  })

  it("an error status is a tool error that keeps the full result", async () => {
    const { client } = await open(
      answering((id) =>
        interruptedResult(id, {
          status: "error",
          interrupt_sent: true,
          error_code: "output_unavailable",
          output: null
        })
      )
    )
    const result = await client.callTool({ name: "interrupt_command", arguments: { request_id: REQUEST_ID } })
    expect(result.isError).toBe(true)
    expect(structured(result)).toMatchObject({
      status: "error",
      interrupt_sent: true,
      error_code: "output_unavailable"
    })
  })

  const bad: ReadonlyArray<readonly [string, unknown, RegExp]> = [
    ["no request_id", {}, /^request_id is required$/],
    ["a blank request_id", { request_id: " " }, /^request_id must be non-empty$/],
    [
      "a wait of 61",
      { request_id: REQUEST_ID, wait_seconds: 61 },
      /^wait_seconds must be a number between 0 and 60$/
    ],
    ["a negative wait", { request_id: REQUEST_ID, wait_seconds: -1 }, /wait_seconds/],
    ["a wait as a string", { request_id: REQUEST_ID, wait_seconds: "5" }, /wait_seconds/],
    ["an unknown argument", { request_id: REQUEST_ID, signal: "KILL" }, /^signal is not a known argument$/]
  ]
  for (const [name, args, message] of bad) {
    it(`${name} → invalid_request, nothing reaches the runner`, async () => {
      const { client, backend } = await open(answering((id) => interruptedResult(id)))
      const result = await client.callTool({
        name: "interrupt_command",
        arguments: args as Record<string, unknown>
      })
      expect(structured(result).error_code).toBe("invalid_request")
      expect(String(structured(result).message)).toMatch(message)
      expect(backend.calls()).toEqual([])
    })
  }

  it("writes a command audit line with interrupt_sent and the digest of the returned output", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tp-interrupt-audit-"))
    dirs.push(dir)
    const path = join(dir, "audit.jsonl")
    const backend = makeRecordingBackend(answering((id) => interruptedResult(id)))
    const audit = auditLogLayer({ enabled: true, path, maxBytes: 1 << 20, redact: true }).pipe(
      Layer.provide(NodeFileSystem.layer)
    )
    const mcp = await openMcpHarness(Layer.merge(backend.layer, audit))
    await mcp.client.callTool({ name: "interrupt_command", arguments: { request_id: REQUEST_ID } })
    await mcp.client.callTool({
      name: "run_command",
      arguments: { session_id: SESSION_ID, command: "ls" }
    })
    await mcp.close() // drains the audit writer
    const [interrupt, run] = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(interrupt).toMatchObject({
      kind: "command",
      tool: "interrupt_command",
      request_id: REQUEST_ID,
      session_id: SESSION_ID,
      command: "sleep 100",
      status: "completed",
      sent: true,
      interrupt_sent: true,
      exit_code: 130,
      output_chars: 2
    })
    expect(run).toMatchObject({ kind: "command", tool: "run_command" })
    expect(run).not.toHaveProperty("interrupt_sent")
  })
})
