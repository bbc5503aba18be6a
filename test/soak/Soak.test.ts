/**
 * Soak: 10,000 mixed tool calls over STDIO against the published bin (`node dist/termpilot.js`,
 * started as users start it: no V8 flags, no NODE_OPTIONS) talking to the protocol-level fake
 * iTerm2 (real shells) started in this process. Measures the server's RSS and open file
 * descriptors after a warm-up and at the end; passes when both grew by less than 10 % and every
 * failure is one the scenario explains. Skipped in the normal suite; run with `npm run soak`
 * (TERMPILOT_SOAK=1; SOAK_CALLS=n for a shorter run; SOAK_BIN=<path> soaks another build's bin, for
 * an A/B). It runs on the Node that runs vitest: `PATH=<node 22>/bin:$PATH` soaks on Node 22.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { describe, expect, it } from "vitest"
import { FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import { FakeWorld } from "../fakes/iterm2/FakeWorld.js"
import { linkHome } from "../support/FakeIterm2Backend.js"

const TOTAL = Number(process.env.SOAK_CALLS ?? 10_000)
// The first fifth warms up. Over the first ~2,000 calls V8 is still compiling and optimizing the
// hot paths (its code and bytecode spaces +3 MB on Node 24) and the result registry fills (256
// results): RSS +5–6 MB between calls 1,000 and 2,000, then flat. Growth is measured after that.
const WARMUP = Math.floor(TOTAL / 5)
const LANES = 3 // one session per lane, so run_command never collides (command_in_flight)
const MAX_GROWTH = 0.1
const BIN = process.env.SOAK_BIN ?? "dist/termpilot.js"

interface Sample {
  readonly rssKb: number
  readonly fds: number
}

const sample = (pid: number): Sample => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const rss = /VmRSS:\s+(\d+) kB/.exec(status)?.[1]
  if (rss === undefined) throw new Error(`no VmRSS for ${pid}`)
  return { rssKb: Number(rss), fds: readdirSync(`/proc/${pid}/fd`).length }
}

/** CPU seconds the process has used (user + system, all its threads), from /proc/<pid>/stat. */
const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

type Data = Record<string, unknown>
interface Outcome {
  readonly isError: boolean
  readonly data: Data
}

const counts = new Map<string, number>()
const unexplained: Array<string> = []
let done = 0
/** run_command results with sent true: each must match exactly one SendText. */
let sentRuns = 0
/** run_command rejected as busy because the previous command's next prompt was not drawn yet. */
let notYetPrompt = 0
let warm: Sample | undefined
/** RSS every 1,000 calls, to tell a steady climb (a leak) from a one-off step. */
const trail: Array<number> = []
let pid = 0

/** Every call of the scenario: what it expects, checked right away. */
const expectThat = (what: string, ok: boolean, outcome: Outcome) => {
  if (!ok && unexplained.length < 20)
    unexplained.push(
      `${what}: ${JSON.stringify({ ...outcome.data, started_at: undefined, request_id: undefined })}`
    )
  else if (!ok) unexplained.push(what)
}

const INVALID: ReadonlyArray<readonly [string, Data]> = [
  ["read_terminal", { session_id: "" }],
  ["read_terminal", { session_id: "x", max_lines: 0 }],
  ["run_command", { session_id: "x", command: "echo a\necho b" }],
  ["run_command", { session_id: "x", command: "echo \u202e" }],
  ["run_command", { session_id: "x", command: "true", timeout_seconds: "5" }],
  ["get_command_result", { request_id: "x", wait_seconds: -1 }],
  ["list_sessions", { extra: true }]
]

const lane = async (client: Client, sessionId: string, index: number, share: number) => {
  const requestIds: Array<string> = []
  const callTool = async (name: string, args: Data): Promise<Outcome> => {
    const result = await client.callTool({ name, arguments: args })
    counts.set(name, (counts.get(name) ?? 0) + 1)
    done++
    if (done === WARMUP) warm = sample(pid)
    if (done % 1_000 === 0) trail.push(sample(pid).rssKb)
    return { isError: result.isError === true, data: (result.structuredContent ?? {}) as Data }
  }
  for (let i = 0; i < share; i++) {
    const step = (i * 7 + index) % 20
    if (step < 4) {
      const r = await callTool("list_sessions", {})
      expectThat("list_sessions", !r.isError && (r.data.sessions as Array<unknown>).length === LANES, r)
    } else if (step < 6) {
      const r = await callTool("get_current_session", {})
      expectThat("get_current_session", !r.isError && r.data.is_current === true, r)
    } else if (step < 11) {
      const r = await callTool("read_terminal", { session_id: sessionId, max_lines: 20 })
      expectThat("read_terminal", !r.isError && r.data.session_id === sessionId, r)
    } else if (step < 15) {
      const code = i % 4
      const word = `soak-${index}-${i}`
      const r = await callTool("run_command", {
        session_id: sessionId,
        command: `echo ${word}; (exit ${code})`
      })
      // Contract: right after a command ends, before the next prompt is drawn, the session is
      // "busy" and run_command is rejected with nothing sent. Explained, but counted.
      if (
        r.data.status === "rejected" &&
        r.data.error_code === "session_not_ready" &&
        r.data.sent === false
      ) {
        notYetPrompt++
        continue
      }
      expectThat(
        "run_command",
        !r.isError && r.data.status === "completed" && r.data.exit_code === code && r.data.output === word,
        r
      )
      if (r.data.sent === true) sentRuns++
      if (typeof r.data.request_id === "string") requestIds.push(r.data.request_id)
    } else if (step < 18 && requestIds.length > 0) {
      const id = requestIds[requestIds.length - 1 - (i % Math.min(requestIds.length, 50))]!
      const r = await callTool("get_command_result", { request_id: id })
      expectThat("get_command_result", !r.isError && r.data.status === "completed", r)
    } else {
      const [name, args] = INVALID[i % INVALID.length]!
      const r = await callTool(name, args)
      expectThat(`invalid ${name}`, r.isError && r.data.error_code === "invalid_request", r)
      counts.set("(invalid)", (counts.get("(invalid)") ?? 0) + 1)
    }
  }
}

const soak = async (): Promise<boolean> => {
  const world = new FakeWorld({ scrollback: 1000 })
  const server = await FakeIterm2Server.start({ handler: world.handler, allowAll: true })
  const home = join(server.dir, "home")
  linkHome(server, home)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: {
      // As users start it: none of this process's NODE_OPTIONS (vitest's or a developer's).
      ...(Object.fromEntries(
        Object.entries(process.env).filter(([k, v]) => k !== "NODE_OPTIONS" && v !== undefined)
      ) as Record<string, string>),
      HOME: home,
      TERMPILOT_OSASCRIPT: "/nonexistent"
    },
    stderr: "pipe"
  })
  transport.stderr?.on("data", () => {}) // drain; the server logs to stderr only
  const client = new Client({ name: "termpilot-soak", version: "0.0.0" })
  try {
    const ids: Array<string> = []
    for (let i = 0; i < LANES; i++) ids.push((await world.createWindow({ title: `soak-${i}` })).sessionId)
    await client.connect(transport)
    pid = transport.pid ?? 0
    if (pid === 0) throw new Error("no server pid")
    const started = Date.now()
    const share = Math.ceil(TOTAL / LANES)
    await Promise.all(ids.map((id, i) => lane(client, id, i, share)))
    const seconds = (Date.now() - started) / 1000
    const end = sample(pid)
    const cpu = cpuSeconds(pid)
    const base = warm ?? end
    const growth = (a: number, b: number) => (b - a) / a
    const rssGrowth = growth(base.rssKb, end.rssKb)
    const fdGrowth = growth(base.fds, end.fds)
    const sentOk = world.ledger.size === sentRuns
    const rows: Array<[string, string]> = [
      ["server", `node ${process.version} (pid ${transport.pid}) ${BIN}, no NODE_OPTIONS, no V8 flags`],
      ["calls", `${done} in ${seconds.toFixed(1)} s (${(done / seconds).toFixed(0)}/s), ${LANES} lanes`],
      ["server CPU", `${cpu.toFixed(1)} s user + system (${((cpu * 1000) / done).toFixed(2)} ms per call)`],
      ["per tool", [...counts].map(([k, v]) => `${k} ${v}`).join(", ")],
      ["RSS (kB)", `${base.rssKb} after ${WARMUP} → ${end.rssKb} at end (${(rssGrowth * 100).toFixed(1)} %)`],
      ["RSS trail", `${trail.map((kb) => Math.round(kb / 1024)).join(" ")} MB`],
      ["open fds", `${base.fds} after ${WARMUP} → ${end.fds} at end (${(fdGrowth * 100).toFixed(1)} %)`],
      ["SendText", `${world.ledger.size} (one per run_command: ${sentOk})`],
      ["busy rejects", `${notYetPrompt} (session_not_ready before the next prompt was drawn; nothing sent)`],
      ["unexplained", `${unexplained.length}`]
    ]
    for (const [k, v] of rows) process.stderr.write(`${k.padEnd(12)} ${v}\n`)
    for (const line of unexplained.slice(0, 20)) process.stderr.write(`  ${line}\n`)
    const pass = unexplained.length === 0 && rssGrowth < MAX_GROWTH && fdGrowth < MAX_GROWTH && sentOk
    process.stderr.write(`soak ${pass ? "PASS" : "FAIL"}\n`)
    return pass
  } finally {
    await client.close().catch(() => {})
    await server.close()
    await world.dispose()
  }
}

describe.skipIf(process.env.TERMPILOT_SOAK !== "1")("soak over stdio (npm run soak)", () => {
  it(
    `${TOTAL} mixed calls: no unexplained failure, RSS and fd growth < 10 %`,
    async () => {
      expect(await soak()).toBe(true)
    },
    30 * 60_000
  )
})
