/**
 * Spawned — a server process started the way MCP clients start it (a command over stdio, the real
 * MCP SDK client), with what the bench reads off it: time to `initialize` answered, RSS and peak
 * RSS from /proc, and which Node runs it.
 */
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { performance } from "node:perf_hooks"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"

export interface NodeRuntime {
  /** "20.20.2" */
  readonly version: string
  readonly execPath: string
}

export const nodeRuntime = (execPath: string): NodeRuntime => {
  const r = spawnSync(execPath, ["-p", "process.versions.node"], { encoding: "utf8", timeout: 30_000 })
  if (r.status !== 0) throw new Error(`${execPath} does not run: ${r.stderr}`)
  return { version: r.stdout.trim(), execPath }
}

export interface Launch {
  readonly node: NodeRuntime
  /** Script and arguments after the Node executable. */
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
}

export interface Started {
  readonly client: Client
  readonly pid: number
  /** Spawn → `initialize` answered, ms. */
  readonly initializeMs: number
  /** CPU time (user + system) the server had used when `initialize` was answered, ms. */
  readonly initializeCpuMs: number
  readonly close: () => Promise<void>
}

/** A clean environment: PATH, HOME and what the launch adds (no NODE_OPTIONS, no TermPilot settings). */
export const baseEnv = (home: string): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  TERMPILOT_OSASCRIPT: "/nonexistent/osascript",
  NO_COLOR: "1"
})

export const start = async (launch: Launch): Promise<Started> => {
  const transport = new StdioClientTransport({
    command: launch.node.execPath,
    args: [...launch.args],
    env: { ...launch.env },
    stderr: "pipe"
  })
  transport.stderr?.on("data", () => {})
  const client = new Client({ name: "termpilot-bench", version: "0" })
  const t0 = performance.now()
  await client.connect(transport)
  const initializeMs = performance.now() - t0
  const pid = transport.pid
  if (pid === null) throw new Error("no server pid")
  return { client, pid, initializeMs, initializeCpuMs: cpuMs(pid), close: () => client.close() }
}

const statusKb = (pid: number, field: "VmRSS" | "VmHWM"): number => {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  if (match === null) throw new Error(`no ${field} for ${pid}`)
  return Number(match[1])
}

const CLOCK_TICKS_PER_SECOND = 100

/**
 * CPU time (user + system) a process has used, ms (/proc/<pid>/stat, 10 ms resolution). On a
 * shared machine this is the figure to compare: wall time also counts waiting for a core.
 */
export const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND
}

/** Resident set size now, MB. */
export const rssMb = (pid: number): number => statusKb(pid, "VmRSS") / 1024
/** Peak resident set size over the process's life, MB. */
export const peakRssMb = (pid: number): number => statusKb(pid, "VmHWM") / 1024

/** The structured result of a tool call, failing the bench on a tool error. */
export const callOk = async (
  client: Client,
  name: string,
  args: Record<string, unknown> = {}
): Promise<Record<string, unknown>> => {
  const result = await client.callTool({ name, arguments: args }, { timeout: 300_000 })
  const data = (result.structuredContent ?? {}) as Record<string, unknown>
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(data).slice(0, 500)}`)
  return data
}
