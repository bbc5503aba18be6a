/**
 * End to end over real stdio: the built `termpilot` binary, with HOME pointing at a directory
 * whose iTerm2 socket leads to the fake, serves list_sessions and run_command to the SDK's
 * StdioClientTransport; stdout carries JSON-RPC only and stderr none of it.
 * Needs the build (`npx tsc -p tsconfig.build.json`; `npm test` builds first).
 */
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CreatedSession } from "../fakes/iterm2/FakeWorld.js"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

const root = resolve(import.meta.dirname, "../..")
const bin = join(root, "dist/src/cli/bin.js")

let rig: FakeIterm2Rig
let session: CreatedSession

const childEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("ITERM") && !k.startsWith("TERMPILOT")) env[k] = v
  }
  return { ...env, HOME: rig.home, NO_COLOR: "1" }
}

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npx tsc -p tsconfig.build.json\` first`)
  rig = await openFakeIterm2Rig()
  session = await rig.world.createWindow({ title: "stdio-target" })
})

afterAll(async () => {
  await rig?.close()
})

describe("termpilot over stdio against the fake iTerm2", () => {
  it("serves list_sessions and run_command to the SDK client; stdout is JSON-RPC only", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin],
      env: childEnv(),
      stderr: "pipe"
    })
    let stderr = ""
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    const client = new Client({ name: "termpilot-e2e-stdio", version: "0" })
    const protocolErrors: Array<Error> = []
    client.onerror = (error) => protocolErrors.push(error)
    await client.connect(transport)
    try {
      const list = await client.callTool({ name: "list_sessions", arguments: {} })
      expect(list.isError ?? false).toBe(false)
      const sessions = (list.structuredContent as { sessions: Array<Record<string, unknown>> }).sessions
      expect(sessions.map((s) => s.session_id)).toEqual([session.sessionId])
      expect(sessions[0]).toMatchObject({
        session_title: "stdio-target",
        tty: rig.world.shell(session.sessionId).tty,
        execution_readiness: "ready"
      })

      const command = "echo over-stdio; (exit 7)"
      const ran = await client.callTool({
        name: "run_command",
        arguments: { session_id: session.sessionId, command, timeout_seconds: 20 }
      })
      expect(ran.isError ?? false).toBe(false)
      expect(ran.structuredContent).toMatchObject({
        session_id: session.sessionId,
        command,
        status: "completed",
        sent: true,
        exit_code: 7,
        output: "over-stdio"
      })
      expect(rig.world.ledger.all()).toEqual([
        expect.objectContaining({ session: session.sessionId, text: `${command}\r` })
      ])
    } finally {
      await client.close()
    }
    // A non-JSON-RPC line on stdout would have reached the client as a parse error.
    expect(protocolErrors).toEqual([])
    expect(stderr).not.toContain('"jsonrpc"')
  })

  it("every stdout line is a JSON-RPC message answering our requests (raw pipes)", async () => {
    const child = spawn(process.execPath, [bin], { env: childEnv(), stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    const answered = new Set<number>()
    const waiters = new Map<number, () => void>()
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      for (const line of stdout.split("\n").slice(0, -1)) {
        const id = (JSON.parse(line) as { id?: number }).id
        if (id !== undefined && !answered.has(id)) {
          answered.add(id)
          waiters.get(id)?.()
        }
      }
    })
    const exited = new Promise<number | null>((done) => child.on("close", done))
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
    const request = (id: number, method: string, params: object) =>
      new Promise<void>((done, failed) => {
        const timer = setTimeout(
          () => failed(new Error(`no answer to ${id} in 20 s; stderr: ${stderr}`)),
          20_000
        )
        waiters.set(id, () => {
          clearTimeout(timer)
          done()
        })
        send({ id, method, params })
      })
    try {
      await request(1, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "0" }
      })
      send({ method: "notifications/initialized" })
      await request(2, "tools/call", { name: "list_sessions", arguments: {} })
      await request(3, "tools/call", {
        name: "run_command",
        arguments: { session_id: session.sessionId, command: "printf 'raw-%s\\n' 7; (exit 7)" }
      })
    } finally {
      child.stdin.end()
    }
    expect(await exited, stderr).toBe(0)

    expect(stdout.endsWith("\n")).toBe(true)
    const messages = stdout
      .slice(0, -1)
      .split("\n")
      .map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: Record<string, unknown> })
    expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true)
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3])
    const listed = messages[1]!.result.structuredContent as { sessions: Array<{ session_id: string }> }
    expect(listed.sessions.map((s) => s.session_id)).toEqual([session.sessionId])
    expect(messages[2]!.result.structuredContent).toMatchObject({
      status: "completed",
      exit_code: 7,
      output: "raw-7"
    })
    expect(stderr).not.toContain('"jsonrpc"')
  })
})
