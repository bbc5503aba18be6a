/**
 * The MCP surface over the real CommandRunnerLive and the driver-style FakeTerminal: what a client
 * asks for is exactly what gets typed, a session that is not ready gets nothing, and a result can
 * be picked up later with get_command_result.
 */
import { Effect, Layer } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { makeCommandRunner } from "../../src/layers/runner/CommandRunnerLive.js"
import { CommandRunner } from "../../src/services/CommandRunner.js"
import { FakeTerminalDriver, FakeTerminalLayer } from "../fakes/FakeTerminal.js"
import { type McpHarness, openMcpHarness } from "../support/McpHarness.js"

const world = Layer.effect(CommandRunner, makeCommandRunner({ promptGraceMs: 0 })).pipe(
  Layer.provideMerge(FakeTerminalLayer)
)
type World = Layer.Success<typeof world>

let harness: McpHarness<World> | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const open = async () => {
  const h = await openMcpHarness(world)
  harness = h
  await h.client.listTools()
  const drive = <A>(f: (driver: FakeTerminalDriver["Service"]) => Effect.Effect<A>) =>
    h.runPromise(Effect.flatMap(FakeTerminalDriver, f))
  return { client: h.client, drive }
}

describe("run_command through MCP and CommandRunnerLive", () => {
  it("types exactly the requested command and reports its completion", async () => {
    const { client, drive } = await open()
    await drive((d) => d.addSession("s1", { promptId: "p1" }))
    await drive((d) => d.setOutput("s1", "p1", "hello\n"))
    await drive((d) =>
      d.emitOnSubmit("s1", [
        { _tag: "CommandStart", promptId: "p1", command: "echo hello" },
        { _tag: "CommandEnd", promptId: "p1", exitCode: 0 }
      ])
    )
    const result = await client.callTool({
      name: "run_command",
      arguments: { session_id: "s1", command: "echo hello" }
    })
    expect(result.isError).toBe(false)
    expect(result.structuredContent).toMatchObject({
      session_id: "s1",
      command: "echo hello",
      status: "completed",
      sent: true,
      exit_code: 0,
      output: "hello"
    })
    expect(await drive((d) => d.ledger)).toEqual([{ sessionId: "s1", command: "echo hello", promptId: "p1" }])

    const requestId = String((result.structuredContent as { request_id: string }).request_id)
    const later = await client.callTool({ name: "get_command_result", arguments: { request_id: requestId } })
    expect(later.structuredContent).toMatchObject({
      request_id: requestId,
      status: "completed",
      exit_code: 0
    })
  })

  it("a busy session is rejected as a tool error and nothing is typed", async () => {
    const { client, drive } = await open()
    await drive((d) => d.addSession("s1", { readiness: "busy", promptId: "p1" }))
    const result = await client.callTool({
      name: "run_command",
      arguments: { session_id: "s1", command: "ls" }
    })
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toMatchObject({
      status: "rejected",
      sent: false,
      error_code: "session_not_ready"
    })
    expect(await drive((d) => d.ledger)).toEqual([])
  })

  it("an invalid command never reaches the runner or the terminal", async () => {
    const { client, drive } = await open()
    await drive((d) => d.addSession("s1", { promptId: "p1" }))
    const result = await client.callTool({
      name: "run_command",
      arguments: { session_id: "s1", command: "ls\nrm -rf ~" }
    })
    expect(result.structuredContent).toMatchObject({ error_code: "invalid_request" })
    expect(await drive((d) => d.ledger)).toEqual([])
  })

  it("wait_for_completion false returns submitted; get_command_result then waits for the end", async () => {
    const { client, drive } = await open()
    await drive((d) => d.addSession("s1", { promptId: "p1" }))
    await drive((d) => d.setOutput("s1", "p1", "done\n"))
    const submitted = await client.callTool({
      name: "run_command",
      arguments: { session_id: "s1", command: "make", wait_for_completion: false }
    })
    expect(submitted).toMatchObject({
      isError: false,
      structuredContent: { status: "submitted", sent: true }
    })
    const requestId = (submitted.structuredContent as { request_id: string }).request_id
    const pending = client.callTool({
      name: "get_command_result",
      arguments: { request_id: requestId, wait_seconds: 10 }
    })
    await drive((d) => d.emit("s1", { _tag: "CommandStart", promptId: "p1", command: "make" }))
    await drive((d) => d.emit("s1", { _tag: "CommandEnd", promptId: "p1", exitCode: 2 }))
    expect((await pending).structuredContent).toMatchObject({
      status: "completed",
      exit_code: 2,
      output: "done"
    })
  })

  it("an unknown request_id is request_not_found", async () => {
    const { client } = await open()
    const result = await client.callTool({ name: "get_command_result", arguments: { request_id: "nope" } })
    expect(result).toMatchObject({ isError: true, structuredContent: { error_code: "request_not_found" } })
  })
})
