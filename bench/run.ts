/**
 * `npm run bench`: latency and round-trip figures of the tools, measured through the real MCP
 * client and TermPilot's real iTerm2 backend against the protocol-level fake iTerm2 (real bash
 * sessions). Prints one table; absolute times are the fake's, round trips are what iTerm2 sees.
 */
import { performance } from "node:perf_hooks"
import { call, type FakeIterm2Rig, openFakeIterm2Rig } from "../test/support/FakeIterm2Backend.js"

interface Row {
  readonly figure: string
  readonly runs: number
  readonly median: number
  readonly p95: number
  readonly requests: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? Number.NaN

/** Times `runs` sequential calls; `requests` is iTerm2 requests per call (from the fake's log). */
const measure = async (
  rig: FakeIterm2Rig,
  figure: string,
  runs: number,
  once: () => Promise<void>
): Promise<Row> => {
  await once() // warm-up: connection, subscriptions
  const before = rig.server.requests.length
  const times: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await once()
    times.push(performance.now() - start)
  }
  const sorted = [...times].sort((a, b) => a - b)
  return {
    figure,
    runs,
    median: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    requests: (rig.server.requests.length - before) / runs
  }
}

const expectOk = (result: { readonly isError: boolean; readonly data: Record<string, unknown> }) => {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.data)}`)
  return result.data
}

const sessionsFigures = async (count: number): Promise<ReadonlyArray<Row>> => {
  const rig = await openFakeIterm2Rig()
  try {
    const first = await rig.world.createWindow({ integration: true })
    for (let i = 1; i < count; i++) {
      if (i % 4 === 0) await rig.world.createWindow({ integration: true })
      else await rig.world.createTab(first.windowId!, { integration: true })
    }
    const rows: Array<Row> = []
    rows.push(
      await measure(rig, `list_sessions, ${count} session(s)`, 20, async () => {
        const data = expectOk(await call(rig.mcp, "list_sessions"))
        if ((data.sessions as ReadonlyArray<unknown>).length !== count) throw new Error("wrong session count")
      })
    )
    if (count === 1) {
      const id = first.sessionId
      await rig.world.runAsUser(id, "seq 1 500")
      rows.push(
        await measure(
          rig,
          "get_current_session",
          30,
          async () => void expectOk(await call(rig.mcp, "get_current_session"))
        )
      )
      rows.push(
        await measure(rig, "read_terminal, 200 lines", 30, async () => {
          expectOk(await call(rig.mcp, "read_terminal", { session_id: id, max_lines: 200 }))
        })
      )
      rows.push(
        await measure(rig, "run_command `true`, end to end", 30, async () => {
          const data = expectOk(await call(rig.mcp, "run_command", { session_id: id, command: "true" }))
          if (data.status !== "completed") throw new Error(`run_command ${String(data.status)}`)
        })
      )
      rows.push(
        await measure(rig, "run_command `seq 1 2000` (output 2000 lines)", 10, async () => {
          const data = expectOk(await call(rig.mcp, "run_command", { session_id: id, command: "seq 1 2000" }))
          if (data.exit_code !== 0) throw new Error("seq failed")
        })
      )
    }
    return rows
  } finally {
    await rig.close()
  }
}

const main = async () => {
  const rows = [...(await sessionsFigures(1)), ...(await sessionsFigures(10)), ...(await sessionsFigures(40))]
  const pad = (s: string, n: number) => s.padEnd(n)
  const num = (n: number) => n.toFixed(1).padStart(9)
  console.log(
    `${pad("figure", 48)}${"runs".padStart(6)}${"median ms".padStart(11)}${"p95 ms".padStart(9)}${"iTerm2 req/call".padStart(17)}`
  )
  for (const r of rows) {
    console.log(
      `${pad(r.figure, 48)}${String(r.runs).padStart(6)}${num(r.median)}  ${num(r.p95).slice(2)}${r.requests.toFixed(1).padStart(17)}`
    )
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
