/**
 * End to end over real stdio and real tmux: the built `termpilot` binary, configured only by its
 * environment (TERMPILOT_BACKENDS=tmux, TERMPILOT_TMUX_SOCKETS, TMUX_TMPDIR, HOME), serves
 * list_sessions and run_command to the SDK's StdioClientTransport; stdout is JSON-RPC only; progress
 * notifications, a cancel and interrupt_command work over the same pipe. And
 * `termpilot shell-integration bash` prints exactly the snippet the world's panes source.
 * Needs the build (`npx tsc -p tsconfig.build.json`; `npm test` builds first).
 */
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import { Client } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chooseSnippet } from "../../src/shell-integration/ShellIntegration.js"
import type { McpHarness } from "../support/McpHarness.js"
import { stdioTransport, tmuxWorldEnv } from "../support/StdioServer.js"
import { type RigPane, settle } from "../support/tmux/TmuxRig.js"
import { TmuxWorld } from "../support/tmux/TmuxWorld.js"

const root = resolve(import.meta.dirname, "../..")
const bin = join(root, "dist/src/cli/bin.js")

let world: TmuxWorld
let pane: RigPane

const childEnv = () => tmuxWorldEnv(world)

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npx tsc -p tsconfig.build.json\` first`)
  world = TmuxWorld.create()
  const created = await world.newSession("stdio")
  pane = { ...created, id: await world.sessionId(created) }
})

afterAll(async () => {
  await world?.close()
})

/** The built termpilot with `env`, connected to the SDK's stdio client (stderr collected). */
const connect = async (env: Record<string, string>) => {
  const { transport, stderr } = stdioTransport(bin, env)
  const client = new Client({ name: "termpilot-e2e-tmux-stdio", version: "0" })
  const protocolErrors: Array<Error> = []
  client.onerror = (error) => protocolErrors.push(error)
  await client.connect(transport)
  // settle() and the E2eHelpers only use a harness's client.
  return { client, stderr, protocolErrors }
}

describe("termpilot over stdio against real tmux", () => {
  it("serves list_sessions and run_command; stdout is JSON-RPC only", async () => {
    const { client, stderr, protocolErrors } = await connect(childEnv())
    try {
      await settle({ client } as unknown as McpHarness, pane, "ready")
      const list = await client.callTool({ name: "list_sessions", arguments: {} })
      expect(list.isError ?? false).toBe(false)
      const sessions = (list.structuredContent as { sessions: Array<Record<string, unknown>> }).sessions
      expect(sessions.map((s) => s.session_id)).toEqual([pane.id])
      expect(sessions[0]).toMatchObject({
        backend: "tmux",
        tty: await world.format(pane.paneId, "#{pane_tty}"),
        execution_readiness: "ready"
      })

      const command = "echo over-stdio; (exit 7)"
      const mark = pane.files.recorder.mark()
      const ran = await client.callTool({
        name: "run_command",
        arguments: { session_id: pane.id, command, timeout_seconds: 20 }
      })
      expect(ran.structuredContent).toMatchObject({
        session_id: pane.id,
        status: "completed",
        sent: true,
        exit_code: 7,
        output: "over-stdio"
      })
      expect(pane.files.recorder.textSince(mark)).toBe(`${command}\r`)
    } finally {
      await client.close()
    }
    expect(protocolErrors).toEqual([])
    expect(stderr()).not.toContain('"jsonrpc"')
    // Its control clients went with it.
    await expect
      .poll(async () => (await world.tmux("list-clients", "-F", "#{client_pid}")).trim(), { timeout: 10_000 })
      .toBe("")
  })

  it("a long command over stdio: progress notifications, the client's cancel, then interrupt_command", async () => {
    const { client, stderr, protocolErrors } = await connect(childEnv())
    try {
      await settle({ client } as unknown as McpHarness, pane, "ready")
      const mark = pane.files.recorder.mark()
      const progress: Array<{ progress: number; message?: string | undefined }> = []
      const abort = new AbortController()
      const waiting = client
        .callTool(
          { name: "run_command", arguments: { session_id: pane.id, command: "sleep 100" } },
          {
            onprogress: (p) => progress.push(p),
            signal: abort.signal,
            timeout: 60_000
          }
        )
        .then(
          () => "answered",
          () => "rejected"
        )
      await expect.poll(() => progress.length, { timeout: 10_000 }).toBeGreaterThan(0)
      const requestId = /request_id ([0-9a-f]{32})/.exec(progress[0]?.message ?? "")?.[1]
      expect(requestId).toBeDefined()
      abort.abort()
      expect(await waiting).toBe("rejected")
      const seen = progress.length

      const stopped = await client.callTool({
        name: "interrupt_command",
        arguments: { request_id: requestId, wait_seconds: 10 }
      })
      expect(stopped.structuredContent).toMatchObject({
        request_id: requestId,
        status: "completed",
        exit_code: 130,
        interrupt_sent: true
      })
      // What the pane received: the command, then one ETX — nothing else.
      expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("sleep 100\r\u0003"))
      expect(progress.length).toBe(seen)
    } finally {
      await client.close()
    }
    expect(protocolErrors).toEqual([])
    expect(stderr()).not.toContain('"jsonrpc"')
  })

  it("with no configuration at all, finds the default tmux server as `tmux` would and runs there", async () => {
    const user = TmuxWorld.create({ defaultSocket: true })
    try {
      const created = await user.newSession("plain-tmux")
      const own: RigPane = { ...created, id: await user.sessionId(created) }
      const env: Record<string, string> = { ...childEnv(), HOME: user.home, TMUX_TMPDIR: user.tmuxTmpdir }
      delete env.TERMPILOT_BACKENDS
      delete env.TERMPILOT_TMUX_SOCKETS
      const { client } = await connect(env)
      try {
        await settle({ client } as unknown as McpHarness, own, "ready")
        const list = await client.callTool({ name: "list_sessions", arguments: {} })
        const ids = (list.structuredContent as { sessions: Array<{ session_id: string }> }).sessions
        expect(ids.map((s) => s.session_id)).toEqual([own.id])
        expect(own.id).toContain(`${user.tmuxTmpdir}/tmux-`)
        const ran = await client.callTool({
          name: "run_command",
          arguments: { session_id: own.id, command: "echo found-by-default" }
        })
        expect(ran.structuredContent).toMatchObject({
          status: "completed",
          exit_code: 0,
          output: "found-by-default"
        })
      } finally {
        await client.close()
      }
    } finally {
      await user.close()
    }
  })

  it("termpilot shell-integration bash prints exactly the snippet the panes source", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "shell-integration", "bash"], {
      env: childEnv(),
      timeout: 20_000
    })
    const snippet = chooseSnippet("bash")
    expect(snippet._tag).toBe("Snippet")
    expect(stdout.trimEnd()).toBe(snippet._tag === "Snippet" ? snippet.text.trimEnd() : "")
  })
})
