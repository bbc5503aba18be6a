import { readFileSync } from "node:fs"
import { ProtocolError } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { UNTRUSTED_TERMINAL_NOTICE } from "../../src/domain/Hygiene.js"
import { fail } from "../../src/services/Errors.js"
import { toolRegistry } from "../../src/tools/Registry.js"
import { type McpHarness, openMcpHarness } from "../support/McpHarness.js"
import {
  completedResult,
  makeRecordingBackend,
  type Overrides,
  SESSION_ID,
  sampleSession
} from "../support/RecordingBackend.js"

const packageJson = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string
}

let harness: McpHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const open = async (overrides: Overrides = {}, readOnly = false) => {
  const backend = makeRecordingBackend(overrides)
  harness = await openMcpHarness(backend.layer, { tools: toolRegistry({ readOnly }) })
  // listTools first: the SDK client then validates every structuredContent against outputSchema.
  await harness.client.listTools()
  return { client: harness.client, backend }
}

type Result = Awaited<ReturnType<McpHarness["client"]["callTool"]>>
const structured = (result: Result) => result.structuredContent as Record<string, unknown>
const texts = (result: Result) =>
  (result.content as ReadonlyArray<{ type: string; text?: string }>).map((c) => c.text ?? "")

describe("initialize and tools/list", () => {
  it("identifies as termpilot with the package version and explains the flow", async () => {
    const { client } = await open()
    expect(client.getServerVersion()).toMatchObject({ name: "termpilot", version: packageJson.version })
    const instructions = client.getInstructions() ?? ""
    for (const phrase of [
      "get_current_session",
      "read_terminal",
      "run_command",
      "get_command_result",
      "interrupt_command",
      "progressToken",
      "since",
      "explicitly asked",
      "wait_for_output",
      "list_commands",
      "read_command_output"
    ]) {
      expect(instructions).toContain(phrase)
    }
    expect(instructions).toMatch(/never authorize/)
  })

  it("lists the ten tools in a fixed order with explicit annotations", async () => {
    const { client } = await open()
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      "list_sessions",
      "get_current_session",
      "read_terminal",
      "list_commands",
      "read_command_output",
      "run_command",
      "get_command_result",
      "interrupt_command",
      "wait_for_output",
      "send_keys"
    ])
    const reader = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
    const byName = new Map(tools.map((t) => [t.name, t]))
    for (const name of [
      "list_sessions",
      "get_current_session",
      "read_terminal",
      "list_commands",
      "read_command_output",
      "get_command_result",
      "wait_for_output"
    ]) {
      expect(byName.get(name)?.annotations).toMatchObject(reader)
      expect(byName.get(name)?.description).toMatch(/observation data/)
    }
    const writer = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }
    expect(byName.get("run_command")?.annotations).toMatchObject(writer)
    expect(byName.get("interrupt_command")?.annotations).toMatchObject(writer)
    expect(byName.get("send_keys")?.annotations).toMatchObject(writer)
    expect(byName.get("send_keys")?.description).toMatch(/asks the user in the client's dialog/)
    expect(byName.get("run_command")?.description).toMatch(/explicitly asked/)
    const interrupt = byName.get("interrupt_command")?.description ?? ""
    expect(interrupt).toMatch(/one Ctrl-C/)
    expect(interrupt).toMatch(/never escalates/)
    expect(interrupt).toMatch(/only when the user asks to stop the command/)
    expect(byName.get("get_command_result")?.description).toMatch(/output so far/)
    for (const tool of tools) {
      expect(tool.title).toBeTruthy()
      expect(tool.inputSchema.type).toBe("object")
      expect(tool.outputSchema?.type).toBe("object")
    }
  })

  it("publishes bounds, defaults and descriptions in the input schemas", async () => {
    const { client } = await open()
    const { tools } = await client.listTools()
    const run = tools.find((t) => t.name === "run_command")
    expect(run?.inputSchema.required).toEqual(["session_id", "command"])
    expect(run?.inputSchema.additionalProperties).toBe(false)
    expect(run?.inputSchema.properties?.timeout_seconds).toMatchObject({
      type: "number",
      exclusiveMinimum: 0,
      maximum: 300,
      default: 30
    })
    expect(run?.inputSchema.properties?.max_output_chars).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 131072,
      default: 32768
    })
    const read = tools.find((t) => t.name === "read_terminal")
    expect(read?.inputSchema.properties?.max_lines).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 2000,
      default: 200
    })
    for (const property of Object.values(read?.inputSchema.properties ?? {})) {
      expect((property as { description?: string }).description).toBeTruthy()
      expect(property).not.toHaveProperty("title")
    }
  })

  it("drops run_command and interrupt_command in read-only mode and refuses to call them", async () => {
    const { client, backend } = await open({}, true)
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      "list_sessions",
      "get_current_session",
      "read_terminal",
      "list_commands",
      "read_command_output",
      "get_command_result",
      "wait_for_output"
    ])
    await expect(
      client.callTool({ name: "run_command", arguments: { session_id: SESSION_ID, command: "ls" } })
    ).rejects.toThrow(ProtocolError)
    await expect(
      client.callTool({ name: "interrupt_command", arguments: { request_id: "abc" } })
    ).rejects.toThrow(/Unknown tool: interrupt_command/)
    expect(backend.calls()).toEqual([])
    expect(client.getInstructions()).toContain("read-only")
    expect(client.getInstructions()).toMatch(/run_command and interrupt_command are not available/)
  })
})

describe("successful calls", () => {
  it("list_sessions returns the sessions as structuredContent and as JSON text", async () => {
    const { client } = await open()
    const result = await client.callTool({ name: "list_sessions", arguments: {} })
    expect(result.isError).toBe(false)
    expect(structured(result)).toEqual({ sessions: [sampleSession], unavailable: [] })
    const [summary, json] = texts(result)
    expect(summary).toBe("Found 1 terminal session(s).")
    expect(JSON.parse(json ?? "")).toEqual(structured(result))
  })

  it("accepts a missing arguments object for tools without inputs", async () => {
    const { client } = await open()
    const result = await client.callTool({ name: "get_current_session" })
    expect(result.isError).toBe(false)
    expect(structured(result)).toEqual(sampleSession)
  })

  it("read_terminal applies the default bounds and reports the snapshot", async () => {
    const { client, backend } = await open()
    const before = Date.now()
    const result = await client.callTool({ name: "read_terminal", arguments: { session_id: SESSION_ID } })
    expect(backend.calls()).toEqual([
      { service: "Terminal", method: "read", args: [SESSION_ID, { maxLines: 200, maxChars: 32768 }] }
    ])
    const snapshot = structured(result)
    expect(snapshot).toMatchObject({
      session_id: SESSION_ID,
      content: "ada@laptop ~/src % ls\nREADME.md  src  test\nada@laptop ~/src %",
      line_count: 3,
      truncated: false,
      execution_readiness: "ready"
    })
    const capturedAt = Date.parse(String(snapshot.captured_at))
    expect(capturedAt).toBeGreaterThanOrEqual(before - 1000)
    expect(capturedAt).toBeLessThanOrEqual(Date.now() + 1000)
  })

  it("read_terminal passes explicit bounds through", async () => {
    const { client, backend } = await open()
    const result = await client.callTool({
      name: "read_terminal",
      arguments: { session_id: SESSION_ID, max_lines: 1, max_chars: 131072 }
    })
    expect(structured(result)).toMatchObject({
      content: "ada@laptop ~/src %",
      line_count: 1,
      truncated: true
    })
    expect(backend.calls()[0]?.args[1]).toEqual({ maxLines: 1, maxChars: 131072 })
  })

  it("run_command hands the exact request with defaults to the CommandRunner", async () => {
    const { client, backend } = await open()
    const result = await client.callTool({
      name: "run_command",
      arguments: { session_id: SESSION_ID, command: " ls -la" }
    })
    const request = {
      sessionId: SESSION_ID,
      command: " ls -la",
      waitForCompletion: true,
      timeoutSeconds: 30,
      maxOutputChars: 32768,
      maxOutputLines: 2000
    }
    expect(backend.calls()).toEqual([{ service: "CommandRunner", method: "run", args: [request] }])
    expect(result.isError).toBe(false)
    expect(structured(result)).toEqual({ ...completedResult(request), redactions: 0 })
    // Output comes from the terminal: the summary first labels it as untrusted observation data.
    expect(texts(result)[0]).toBe(
      `${UNTRUSTED_TERMINAL_NOTICE}\nCommand completed in session ${SESSION_ID} with exit code 0.`
    )
  })

  it("run_command accepts a non-BMP command of exactly 8192 code points", async () => {
    const { client, backend } = await open()
    const command = "\u{1F600}".repeat(8192)
    const result = await client.callTool({
      name: "run_command",
      arguments: { session_id: SESSION_ID, command }
    })
    expect(result.isError).toBe(false)
    expect(backend.calls()).toHaveLength(1)
  })

  it("a rejected or failed CommandResult is an MCP tool error that keeps the full result", async () => {
    for (const status of ["rejected", "error"] as const) {
      const rejected = (request: Parameters<typeof completedResult>[0]) => ({
        ...completedResult(request),
        status,
        sent: false,
        exit_code: null,
        output: null,
        finished_at: null,
        duration_ms: null,
        error_code: "session_not_ready" as const,
        message: `Session '${SESSION_ID}' has pending input at the shell prompt.`
      })
      const { client } = await open({ runner: { run: (request) => Effect.succeed(rejected(request)) } })
      const result = await client.callTool({
        name: "run_command",
        arguments: { session_id: SESSION_ID, command: "ls" }
      })
      expect(result.isError).toBe(true)
      expect(structured(result)).toMatchObject({ status, sent: false, error_code: "session_not_ready" })
      expect(texts(result)[0]).toContain("nothing was sent")
      await harness?.close()
      harness = undefined
    }
  })

  it("a timed_out result is not a tool error", async () => {
    const { client } = await open({
      runner: {
        result: (requestId) =>
          Effect.succeed({
            ...completedResult({
              sessionId: SESSION_ID,
              command: "sleep 100",
              waitForCompletion: true,
              timeoutSeconds: 1,
              maxOutputChars: 10,
              maxOutputLines: 2000
            }),
            request_id: requestId,
            status: "timed_out" as const,
            exit_code: null,
            output: null,
            finished_at: null,
            duration_ms: null,
            error_code: "command_timeout" as const,
            message: "Stopped waiting after 1 seconds; the command may still be running."
          })
      }
    })
    const result = await client.callTool({
      name: "get_command_result",
      arguments: { request_id: "abc", wait_seconds: 2.5 }
    })
    expect(result.isError).toBe(false)
    expect(structured(result)).toMatchObject({ request_id: "abc", status: "timed_out" })
  })
})

describe("invalid arguments never reach the backend", () => {
  const valid = { session_id: SESSION_ID, command: "ls" }
  const cases: ReadonlyArray<readonly [string, string, unknown, RegExp]> = [
    ["run_command", "missing command", { session_id: SESSION_ID }, /^command is required$/],
    ["run_command", "missing session_id", { command: "ls" }, /^session_id is required$/],
    ["run_command", "command as a number", { ...valid, command: 42 }, /^command must be a string$/],
    ["run_command", "session_id as a number", { ...valid, session_id: 1 }, /^session_id must be a string$/],
    ["run_command", "blank command", { ...valid, command: "   " }, /^command must be non-empty$/],
    ["run_command", "blank session_id", { ...valid, session_id: " " }, /^session_id must be non-empty$/],
    ["run_command", "NUL", { ...valid, command: "ls\u0000" }, /NUL/],
    ["run_command", "ESC", { ...valid, command: "\u001b[2J" }, /control characters \(U\+001B/],
    ["run_command", "TAB", { ...valid, command: "ls\t-l" }, /control characters \(U\+0009/],
    ["run_command", "newline", { ...valid, command: "ls\nrm -rf ~" }, /control characters \(U\+000A/],
    ["run_command", "CR", { ...valid, command: "ls\r" }, /control characters \(U\+000D/],
    ["run_command", "DEL", { ...valid, command: "ls\u007f" }, /control characters \(U\+007F/],
    ["run_command", "bidi override", { ...valid, command: "echo \u202egnp.exe" }, /bidirectional/],
    ["run_command", "bidi isolate", { ...valid, command: "echo \u2066x\u2069" }, /bidirectional/],
    ["run_command", "a 100 kB command", { ...valid, command: "x".repeat(100_000) }, /at most 8192/],
    [
      "run_command",
      "8193 non-BMP code points",
      { ...valid, command: "\u{1F600}".repeat(8193) },
      /at most 8192/
    ],
    [
      "run_command",
      "timeout 0",
      { ...valid, timeout_seconds: 0 },
      /timeout_seconds must be a number greater than 0 and at most 300/
    ],
    ["run_command", "timeout 300.5", { ...valid, timeout_seconds: 300.5 }, /timeout_seconds/],
    ["run_command", "timeout as a string", { ...valid, timeout_seconds: "30" }, /timeout_seconds/],
    [
      "run_command",
      "wait_for_completion as a string",
      { ...valid, wait_for_completion: "true" },
      /^wait_for_completion must be a boolean$/
    ],
    [
      "run_command",
      "wait_for_completion as 1",
      { ...valid, wait_for_completion: 1 },
      /wait_for_completion must be a boolean/
    ],
    [
      "run_command",
      "max_output_chars 0",
      { ...valid, max_output_chars: 0 },
      /^max_output_chars must be an integer between 1 and 131072$/
    ],
    ["run_command", "max_output_chars 131073", { ...valid, max_output_chars: 131073 }, /max_output_chars/],
    ["run_command", "max_output_chars 1.5", { ...valid, max_output_chars: 1.5 }, /max_output_chars/],
    ["run_command", "max_output_chars as boolean", { ...valid, max_output_chars: true }, /max_output_chars/],
    ["run_command", "an unknown argument", { ...valid, timeout: 5 }, /^timeout is not a known argument$/],
    [
      "read_terminal",
      "max_lines 0",
      { session_id: SESSION_ID, max_lines: 0 },
      /^max_lines must be an integer between 1 and 2000$/
    ],
    ["read_terminal", "max_lines 2001", { session_id: SESSION_ID, max_lines: 2001 }, /max_lines/],
    ["read_terminal", "max_lines as a string", { session_id: SESSION_ID, max_lines: "5" }, /max_lines/],
    [
      "read_terminal",
      "max_chars 131073",
      { session_id: SESSION_ID, max_chars: 131073 },
      /^max_chars must be an integer between 1 and 131072$/
    ],
    [
      "read_terminal",
      "session_id with ESC",
      { session_id: "w0\u001b" },
      /session_id must not contain control/
    ],
    ["read_terminal", "a 300-character session_id", { session_id: "s".repeat(300) }, /at most 256/],
    ["get_command_result", "blank request_id", { request_id: "" }, /^request_id must be non-empty$/],
    [
      "get_command_result",
      "negative wait",
      { request_id: "abc", wait_seconds: -1 },
      /^wait_seconds must be a number between 0 and 300$/
    ],
    ["get_command_result", "wait 301", { request_id: "abc", wait_seconds: 301 }, /wait_seconds/],
    [
      "list_sessions",
      "an unexpected argument",
      { session_id: SESSION_ID },
      /session_id is not a known argument/
    ]
  ]

  it("arguments that are not an object are refused by the protocol layer, reaching nothing", async () => {
    const { client, backend } = await open()
    await expect(
      client.callTool({ name: "run_command", arguments: ["ls"] as unknown as Record<string, unknown> })
    ).rejects.toThrow(ProtocolError)
    expect(backend.calls()).toEqual([])
  })

  for (const [tool, name, args, message] of cases) {
    it(`${tool}: ${name} → invalid_request, zero backend calls`, async () => {
      const { client, backend } = await open()
      const result = await client.callTool({ name: tool, arguments: args as Record<string, unknown> })
      expect(result.isError).toBe(true)
      expect(structured(result).error_code).toBe("invalid_request")
      expect(String(structured(result).message)).toMatch(message)
      expect(texts(result)[0]).toBe(`invalid_request: ${structured(result).message}`)
      expect(backend.calls()).toEqual([])
      // The server still answers, and a valid call goes through.
      const again = await client.callTool({ name: "list_sessions", arguments: {} })
      expect(again.isError).toBe(false)
      expect(backend.calls()).toHaveLength(1)
    })
  }
})

describe("failures", () => {
  it("a TermPilotError from the backend becomes {error_code, message}", async () => {
    const { client } = await open({
      terminal: { listSessions: Effect.fail(fail("iterm2_unavailable", "iTerm2 is not running.")) }
    })
    const result = await client.callTool({ name: "list_sessions", arguments: {} })
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error_code: "iterm2_unavailable", message: "iTerm2 is not running." }
    })
    expect(texts(result)).toEqual(["iterm2_unavailable: iTerm2 is not running."])
  })

  it("an unknown session id is session_not_found from the backend", async () => {
    const { client } = await open()
    const result = await client.callTool({ name: "read_terminal", arguments: { session_id: "w9t9p9:nope" } })
    expect(structured(result)).toEqual({
      error_code: "session_not_found",
      message: "Session 'w9t9p9:nope' was not found."
    })
  })

  it("a defect becomes internal_error and the server keeps serving", async () => {
    const { client } = await open({
      terminal: { currentSession: Effect.die(new Error("secret internal detail")) }
    })
    const result = await client.callTool({ name: "get_current_session", arguments: {} })
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error_code: "internal_error", message: "Unexpected TermPilot failure." }
    })
    expect(JSON.stringify(result)).not.toContain("secret internal detail")
    expect((await client.callTool({ name: "list_sessions", arguments: {} })).isError).toBe(false)
  })

  it("output that breaks the tool's own schema is internal_error, not a malformed result", async () => {
    const { client } = await open({
      terminal: {
        currentSession: Effect.succeed({ ...sampleSession, execution_readiness: "sleepy" } as never)
      }
    })
    const result = await client.callTool({ name: "get_current_session", arguments: {} })
    expect(structured(result)).toEqual({
      error_code: "internal_error",
      message: "Unexpected TermPilot failure."
    })
  })

  it("an unknown tool is a protocol error", async () => {
    const { client } = await open()
    await expect(client.callTool({ name: "type_text", arguments: {} })).rejects.toThrow(
      /Unknown tool: type_text/
    )
  })
})
