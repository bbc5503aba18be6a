/**
 * The MCP client's own iTerm2 session, end to end against the fake iTerm2: the built `termpilot` is
 * started over stdio by a program the person runs in one fake session's real shell (its PTY, its
 * `pid` and `tty` variables are the real ones), as Claude Code in an iTerm2 tab starts it
 * (test/support/ClientInTerminal.ts). list_sessions marks that session `hosts_this_client: true`
 * and no other; send_keys and run_command there fail with `session_hosts_client` with no SendText
 * at all (the fake's ledger: every byte iTerm2 was asked to type); run_command in another session
 * runs. On Linux the process tree comes from /proc, as it would on a Mac from `ps`.
 * Needs the build (`npx tsc -p tsconfig.build.json`; `npm test` builds first).
 */
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import type { Client } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CreatedSession } from "../fakes/iterm2/FakeWorld.js"
import { hostedServer } from "../support/ClientInTerminal.js"
import { expectNothingSent, type SessionView } from "../support/E2eHelpers.js"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

const root = resolve(import.meta.dirname, "../..")
const bin = join(root, "dist/src/cli/bin.js")

let rig: FakeIterm2Rig
let assistant: CreatedSession
let work: CreatedSession

/** The environment of the termpilot the client starts: it finds the fake through HOME only. */
const serverEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(ITERM|TERMPILOT|TMUX|NODE_OPTIONS|NODE_V8|VITEST)/.test(k)) env[k] = v
  }
  return { ...env, HOME: rig.home, TERMPILOT_BACKENDS: "iterm2", NO_COLOR: "1" }
}

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npx tsc -p tsconfig.build.json\` first`)
  rig = await openFakeIterm2Rig()
  work = await rig.world.createWindow({ title: "work" })
  assistant = await rig.world.createWindow({ title: "assistant" })
})

afterAll(async () => {
  await rig?.close()
})

const sessionsOf = async (mcp: Client): Promise<ReadonlyArray<SessionView>> => {
  const listed = await mcp.callTool({ name: "list_sessions", arguments: {} })
  expect(listed.isError ?? false).toBe(false)
  return (listed.structuredContent as { sessions: ReadonlyArray<SessionView> }).sessions
}

describe("an MCP client running in an iTerm2 session", () => {
  it("finds its session marked hosts_this_client, refuses to type there, and runs elsewhere", async () => {
    const started = hostedServer(rig.server.dir, "in-iterm2", bin, serverEnv())
    rig.world.type(assistant.sessionId, `${started.line}\r`)
    const mcp = await started.connect()
    try {
      const sessions = await sessionsOf(mcp)
      const byId = new Map(sessions.map((s) => [s.session_id, s]))
      expect(byId.get(assistant.sessionId)?.hosts_this_client).toBe(true)
      expect(byId.get(work.sessionId)?.hosts_this_client).toBe(false)
      expect(sessions.filter((s) => s.hosts_this_client)).toHaveLength(1)

      const keys = await expectNothingSent(rig.world, () =>
        mcp.callTool({
          name: "send_keys",
          arguments: { session_id: assistant.sessionId, keys: [{ text: "typed" }, { key: "Enter" }] }
        })
      )
      expect(keys.isError).toBe(true)
      expect(keys.structuredContent).toMatchObject({ error_code: "session_hosts_client" })

      const ran = await expectNothingSent(rig.world, () =>
        mcp.callTool({
          name: "run_command",
          arguments: { session_id: assistant.sessionId, command: "echo typed", timeout_seconds: 5 }
        })
      )
      expect(ran.structuredContent).toMatchObject({
        status: "rejected",
        sent: false,
        error_code: "session_hosts_client"
      })

      const elsewhere = await mcp.callTool({
        name: "run_command",
        arguments: { session_id: work.sessionId, command: "echo from-the-client", timeout_seconds: 20 }
      })
      expect(elsewhere.structuredContent).toMatchObject({
        status: "completed",
        sent: true,
        exit_code: 0,
        output: "from-the-client"
      })
      expect(rig.world.ledger.all().map((entry) => entry.session)).not.toContain(assistant.sessionId)
    } finally {
      await mcp.close()
    }
  })
})
