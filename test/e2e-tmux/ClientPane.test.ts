/**
 * The MCP client's own pane, end to end: the built `termpilot` is started over stdio by a program
 * running INSIDE a tmux pane (as Claude Code in a pane starts it), with TMUX and TMUX_PANE removed
 * from its environment, so only the process tree can tell (test/support/ClientInTerminal.ts: the
 * test's SDK stdio client reaches it through a relay). list_sessions marks that pane
 * `hosts_this_client: true` and no other; send_keys (refused before any approval is asked) and
 * run_command there fail with `session_hosts_client`, and the pane's recorder proves it received
 * nothing; run_command in another pane runs. A second pane proves the terminal rule alone: a
 * client started on the pane's terminal whose parent shell is gone (its process is not the pane's).
 * Needs the build (`npx tsc -p tsconfig.build.json`; `npm test` builds first).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import type { Client } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ancestorsOf, hostedServer } from "../support/ClientInTerminal.js"
import type { SessionView } from "../support/E2eHelpers.js"
import { tmuxWorldEnv } from "../support/StdioServer.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import type { WorldPane } from "../support/tmux/TmuxWorld.js"
import { TmuxWorld } from "../support/tmux/TmuxWorld.js"

const root = resolve(import.meta.dirname, "../..")
const bin = join(root, "dist/src/cli/bin.js")

let world: TmuxWorld
let client: WorldPane
let other: WorldPane

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npx tsc -p tsconfig.build.json\` first`)
  world = TmuxWorld.create()
  other = await world.newSession("work")
  client = await world.newSession("assistant")
})

afterAll(async () => {
  await world?.close()
})

const sessionsOf = async (mcp: Client): Promise<ReadonlyArray<SessionView>> => {
  const listed = await mcp.callTool({ name: "list_sessions", arguments: {} })
  expect(listed.isError ?? false).toBe(false)
  return (listed.structuredContent as { sessions: ReadonlyArray<SessionView> }).sessions
}

const paneOf = async (sessions: ReadonlyArray<SessionView>, pane: string): Promise<SessionView> => {
  const tty = await world.format(pane, "#{pane_tty}")
  const found = sessions.find((s) => s.tty === tty)
  if (found === undefined) throw new Error(`${pane} is not listed`)
  return found
}

describe("an MCP client running in a tmux pane", () => {
  it("finds its pane marked hosts_this_client, refuses to type there, and runs elsewhere", async () => {
    const started = hostedServer(world.root, "pid-rule", bin, tmuxWorldEnv(world))
    await world.type(client, started.line)
    await world.press(client, "Enter")
    const mcp = await started.connect()
    try {
      await world.settled(client)
      const sessions = await sessionsOf(mcp)
      const mine = await paneOf(sessions, client.paneId)
      const theirs = await paneOf(sessions, other.paneId)
      expect(mine.hosts_this_client).toBe(true)
      expect(theirs.hosts_this_client).toBe(false)
      expect(sessions.filter((s) => s.hosts_this_client)).toHaveLength(1)

      // send_keys always asks; this client cannot, yet the refusal is the client's pane, first.
      const keys = await expectNothingReached(
        [world],
        () =>
          mcp.callTool({
            name: "send_keys",
            arguments: {
              session_id: mine.session_id,
              keys: [{ text: "echo typed-into-the-client" }, { key: "Enter" }]
            }
          }),
        "send_keys into the client's pane"
      )
      expect(keys.isError).toBe(true)
      expect(keys.structuredContent).toMatchObject({ error_code: "session_hosts_client" })
      expect(String((keys.structuredContent as { message: string }).message)).toContain(
        "the terminal the MCP client itself runs in"
      )

      const ran = await expectNothingReached(
        [world],
        () =>
          mcp.callTool({
            name: "run_command",
            arguments: {
              session_id: mine.session_id,
              command: "echo typed-into-the-client",
              timeout_seconds: 5
            }
          }),
        "run_command in the client's pane"
      )
      expect(ran.structuredContent).toMatchObject({
        status: "rejected",
        sent: false,
        error_code: "session_hosts_client"
      })

      await waitUntil(
        "the other pane's prompt",
        async () =>
          (await sessionsOf(mcp)).some((s) => s.tty === theirs.tty && s.execution_readiness === "ready"),
        15_000
      )
      const elsewhere = await mcp.callTool({
        name: "run_command",
        arguments: { session_id: theirs.session_id, command: "tp_argv from-the-client", timeout_seconds: 20 }
      })
      expect(elsewhere.structuredContent).toMatchObject({ status: "completed", sent: true, exit_code: 0 })
      expect(other.files.argv()).toEqual(["from-the-client"])
      expect(readFileSync(started.log, "utf8")).not.toContain('"jsonrpc"')
    } finally {
      await mcp.close()
    }
  })

  it("with every action needing approval: the client's pane is refused without asking; another pane is asked", async () => {
    const started = hostedServer(world.root, "approval", bin, {
      ...tmuxWorldEnv(world),
      TERMPILOT_APPROVAL: "always"
    })
    await world.type(client, started.line)
    await world.press(client, "Enter")
    const asked: Array<string> = []
    const mcp = await started.connect(async (request) => {
      asked.push(request.params.message)
      return { action: "accept", content: {} }
    })
    try {
      await world.settled(client)
      const sessions = await sessionsOf(mcp)
      const mine = await paneOf(sessions, client.paneId)
      const theirs = await paneOf(sessions, other.paneId)
      expect(mine.hosts_this_client).toBe(true)
      const keys = await expectNothingReached([world], () =>
        mcp.callTool({
          name: "send_keys",
          arguments: { session_id: mine.session_id, keys: [{ text: "y" }, { key: "Enter" }] }
        })
      )
      expect(keys.structuredContent).toMatchObject({ error_code: "session_hosts_client" })
      const ran = await expectNothingReached([world], () =>
        mcp.callTool({
          name: "run_command",
          arguments: { session_id: mine.session_id, command: "echo asked", timeout_seconds: 5 }
        })
      )
      expect(ran.structuredContent).toMatchObject({ status: "rejected", error_code: "session_hosts_client" })
      expect(asked).toEqual([])

      await waitUntil(
        "the other pane's prompt",
        async () => (await paneOf(await sessionsOf(mcp), other.paneId)).execution_readiness === "ready",
        15_000
      )
      const elsewhere = await mcp.callTool({
        name: "run_command",
        arguments: { session_id: theirs.session_id, command: "tp_argv approved", timeout_seconds: 20 }
      })
      expect(elsewhere.structuredContent).toMatchObject({ status: "completed", exit_code: 0 })
      expect(asked).toHaveLength(1)
      expect(asked[0]).toContain("tp_argv approved")
      expect(other.files.argv()).toEqual(["approved"])
    } finally {
      await mcp.close()
    }
  })

  it("by the terminal alone: a client on the pane's terminal whose shell is not its parent", async () => {
    // The pane's own process is `sh`, which starts the host in the background from a subshell that
    // exits at once (the host is re-parented away from the pane's process), then becomes a raw
    // `cat` that writes every byte the pane receives to a file.
    const started = hostedServer(world.root, "tty-rule", bin, tmuxWorldEnv(world))
    const received = join(world.root, "tty-rule.received")
    writeFileSync(received, "")
    const script = `(${started.line} </dev/null >/dev/null 2>&1 &); stty raw -echo; exec cat > '${received}'`
    const pane = (
      await world.tmux("new-session", "-d", "-s", "tty-rule", "-P", "-F", "#{pane_id}", "sh", "-c", script)
    ).trim()
    const mcp = await started.connect()
    try {
      const sessions = await sessionsOf(mcp)
      const mine = await paneOf(sessions, pane)
      const panePid = Number(await world.format(pane, "#{pane_pid}"))
      expect(mine.hosts_this_client).toBe(true)
      expect((await paneOf(sessions, other.paneId)).hosts_this_client).toBe(false)
      expect((await paneOf(sessions, client.paneId)).hosts_this_client).toBe(false)
      // The host is not the pane's process's descendant: only its terminal ties it to the pane.
      const hostPid = started.hostPid()
      expect(ancestorsOf(hostPid)).not.toContain(panePid)

      const keys = await mcp.callTool({
        name: "send_keys",
        arguments: { session_id: mine.session_id, keys: [{ text: "typed" }, { key: "Enter" }] }
      })
      expect(keys.structuredContent).toMatchObject({ error_code: "session_hosts_client" })
      // What the pane received, through its raw `cat`: a pasted fence arrives, nothing before it.
      await world.tmux("set-buffer", "-b", "tp-fence", "fence")
      await world.tmux("paste-buffer", "-b", "tp-fence", "-t", pane)
      await waitUntil("the fence in the pane's cat", () => readFileSync(received, "latin1").includes("fence"))
      expect(readFileSync(received, "latin1")).toBe("fence")
    } finally {
      await mcp.close()
      await world.tmux("kill-session", "-t", "tty-rule").catch(() => "")
    }
  })
})
