/**
 * The built `termpilot` binary over real stdio: stdout carries JSON-RPC only, stdin closing ends
 * the server with exit 0, `--version`/`--help` work, and a person at a terminal gets a hint.
 * Needs the build (`npx tsc -p tsconfig.build.json`; `npm test` builds first).
 */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import * as pty from "node-pty"
import { beforeAll, describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "../..")
const bin = join(root, "dist/src/cli/bin.js")
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version
// A HOME without iTerm2's socket: nothing here may reach a real terminal.
const env = { ...process.env, HOME: mkdtempSync(join(tmpdir(), "termpilot-home-")), NO_COLOR: "1" }

interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Run the binary with `input` on stdin (then closed); bounded by `timeoutMs`. */
const run = (args: ReadonlyArray<string>, input = "", timeoutMs = 20_000): Promise<Finished> =>
  new Promise((done, failed) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      failed(new Error(`termpilot ${args.join(" ")} did not exit within ${timeoutMs} ms; stderr: ${stderr}`))
    }, timeoutMs)
    child.on("error", failed)
    child.on("close", (code) => {
      clearTimeout(timer)
      done({ code, stdout, stderr })
    })
    child.stdin.end(input)
  })

const request = (id: number, method: string, params: object) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params })

beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npx tsc -p tsconfig.build.json\` first`)
})

describe("termpilot (stdio MCP server)", () => {
  it("writes only JSON-RPC to stdout and exits 0 when stdin closes", async () => {
    const input = [
      request(1, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "0" }
      }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      request(2, "tools/list", {}),
      request(3, "tools/call", {
        name: "read_terminal",
        arguments: { session_id: "w0t0p0:x", max_lines: 0 }
      }),
      request(4, "tools/call", {
        name: "run_command",
        arguments: { session_id: "w0t0p0:x", command: "ls\u001b" }
      }),
      ""
    ].join("\n")
    // Debug logging on: every log line must still go to stderr, never into the protocol.
    const { code, stdout, stderr } = await run(["--log-level", "debug"], input)
    expect(code, stderr).toBe(0)
    expect(stdout.endsWith("\n")).toBe(true)
    const messages = stdout
      .slice(0, -1)
      .split("\n")
      .map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result?: Record<string, unknown> })
    expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true)
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3, 4])
    expect(messages[0]?.result?.serverInfo).toMatchObject({ name: "termpilot", version })
    expect(
      ((messages[1]?.result?.tools ?? []) as ReadonlyArray<{ name: string }>).map((t) => t.name)
    ).toContain("run_command")
    expect(messages[2]?.result).toMatchObject({
      isError: true,
      structuredContent: { error_code: "invalid_request" }
    })
    expect(messages[3]?.result).toMatchObject({
      isError: true,
      structuredContent: { error_code: "invalid_request" }
    })
    expect(stderr).not.toContain("not interactive")
    expect(stderr).toContain("MCP server listening on stdio")
  })

  it("serves the SDK's StdioClientTransport", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin],
      env,
      stderr: "pipe"
    })
    const client = new Client({ name: "termpilot-stdio-test", version: "0" })
    await client.connect(transport)
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "termpilot", version })
      const { tools } = await client.listTools()
      expect(tools).toHaveLength(10)
    } finally {
      await client.close()
    }
  })

  it("prints a hint to a person who starts it at a terminal, and quits on Ctrl-D", async () => {
    const term = pty.spawn(process.execPath, [bin], { env, cols: 120, rows: 30, cwd: root })
    let screen = ""
    const exited = new Promise<number>((done) => term.onExit(({ exitCode }) => done(exitCode)))
    try {
      await new Promise<void>((done, failed) => {
        const timer = setTimeout(() => failed(new Error(`no hint within 15 s; saw: ${screen}`)), 15_000)
        term.onData((data) => {
          screen += data
          if (screen.includes("Press Ctrl-D")) {
            clearTimeout(timer)
            done()
          }
        })
      })
      expect(screen).toContain("MCP server")
      term.write("\u0004")
      const code = await Promise.race([
        exited,
        new Promise<never>((_, failed) => setTimeout(() => failed(new Error("no exit after Ctrl-D")), 15_000))
      ])
      expect(code).toBe(0)
    } finally {
      term.kill()
    }
  })
})

describe("termpilot flags", () => {
  it("--version prints the package version", async () => {
    const { code, stdout } = await run(["--version"])
    expect(code).toBe(0)
    expect(stdout.trim()).toBe(version)
  })

  it("--help describes the server and lists the subcommands", async () => {
    const { code, stdout } = await run(["--help"])
    expect(code).toBe(0)
    expect(stdout).toContain("termpilot")
    expect(stdout).toContain("MCP")
    expect(stdout).toContain("serve")
  })

  it("an unknown subcommand fails without touching stdout's protocol", async () => {
    const { code, stdout, stderr } = await run(["no-such-command"])
    expect(code).toBe(1)
    expect(stdout).toBe("")
    expect(stderr).toMatch(/Invalid subcommand/)
  })
})
