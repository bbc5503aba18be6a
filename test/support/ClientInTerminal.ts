/**
 * ClientInTerminal — an MCP client that runs INSIDE a terminal session, as Claude Code in a pane
 * does: a host program, started in the session (typed there as a person would), spawns the built
 * `termpilot` over stdio pipes and relays them over a Unix socket; the test's SDK stdio client
 * spawns a connector to that socket. termpilot is thus a child of a program in that session, with
 * the environment the test chose (no TMUX or TMUX_PANE: only its process tree can tell). Bounded:
 * the host serves one connection, ends with termpilot (which ends when the client closes) and
 * exits after 120 s whatever happens.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { type ElicitHandler, testClient } from "./McpHarness.js"
import { waitUntil } from "./tmux/Recorder.js"

const HOST = `
import { spawn } from "node:child_process"
import { openSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
const config = JSON.parse(readFileSync(process.argv[2], "utf8"))
setTimeout(() => process.exit(3), 120000).unref()
const server = createServer((conn) => {
  server.close()
  const child = spawn(process.execPath, [config.bin], {
    env: config.env,
    stdio: ["pipe", "pipe", openSync(config.log, "a")]
  })
  conn.pipe(child.stdin)
  child.stdout.pipe(conn)
  conn.on("error", () => {})
  conn.on("close", () => child.stdin.end())
  child.on("exit", () => { conn.destroy(); process.exit(0) })
})
server.listen(config.socket)
writeFileSync(config.socket + ".pid", String(process.pid))
`

const CONNECTOR = `
import { connect } from "node:net"
const conn = connect(process.argv[2])
process.stdin.pipe(conn)
conn.pipe(process.stdout)
conn.on("close", () => process.exit(0))
conn.on("error", () => process.exit(1))
`

export interface HostedServer {
  /** The shell command line that starts the host (to type into the session). */
  readonly line: string
  readonly socket: string
  /** termpilot's stderr. */
  readonly log: string
  /** The host's pid, once it listens. */
  readonly hostPid: () => number
  /**
   * The SDK's stdio client connected to that termpilot (waits for the host's socket); declaring
   * elicitation, answered by `elicit`, when given.
   */
  readonly connect: (elicit?: ElicitHandler) => Promise<Client>
}

/** Prepares, under `dir`, a host that serves the built termpilot `bin` with `env` (`name` keeps its files apart). */
export const hostedServer = (
  dir: string,
  name: string,
  bin: string,
  env: Record<string, string>
): HostedServer => {
  writeFileSync(join(dir, "client-host.mjs"), HOST)
  writeFileSync(join(dir, "client-connector.mjs"), CONNECTOR)
  const socket = join(dir, `${name}.sock`)
  const log = join(dir, `${name}.log`)
  const config = join(dir, `${name}.json`)
  writeFileSync(config, JSON.stringify({ bin, env, socket, log }))
  return {
    line: `'${process.execPath}' '${join(dir, "client-host.mjs")}' '${config}'`,
    socket,
    log,
    hostPid: () => Number(readFileSync(`${socket}.pid`, "utf8")),
    connect: async (elicit) => {
      await waitUntil(`the host's socket ${socket}`, () => existsSync(`${socket}.pid`), 15_000)
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(dir, "client-connector.mjs"), socket],
        stderr: "pipe"
      })
      const client = testClient(elicit)
      await client.connect(transport)
      return client
    }
  }
}

/** The pids from `pid`'s parent up to pid 1, from /proc. */
export const ancestorsOf = (pid: number): ReadonlyArray<number> => {
  const chain: Array<number> = []
  for (let current = pid; current > 1 && chain.length < 64; ) {
    const stat = readFileSync(`/proc/${current}/stat`, "latin1")
    current = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
    chain.push(current)
  }
  return chain
}
