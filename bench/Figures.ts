/**
 * Figures — what the bench measures on TermPilot's published bin (dist/termpilot.js, spawned over
 * stdio through the real MCP SDK client) against one backend on one Node: start-up, memory, the
 * hot paths (list_sessions, run_command), each row against its target (issues 9 and 17); OutputFigures
 * measures reads and large outputs, CommandFigures list_commands and read_command_output.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { type BenchWorld, sharedTargets } from "./Backends.js"
import { commandFigures } from "./CommandFigures.js"
import { type Base, type FigureOptions, launch, sleep, timed, withServer, withWorld } from "./Harness.js"
import { outputFigures } from "./OutputFigures.js"
import { callOk, rssMb, start } from "./Spawned.js"
import { atMost, info, type Row } from "./Stats.js"
import { waitFigures } from "./WaitFigures.js"

/** Spawn → initialize of a first start ever: each run with an empty cache directory of its own. */
const firstStarts = async (o: FigureOptions, world: BenchWorld): Promise<Array<number>> => {
  const times: Array<number> = []
  for (let i = 0; i < o.runs; i++) {
    const cacheHome = mkdtempSync(join(tmpdir(), "tp-bench-cache-"))
    try {
      const server = await start({ ...launch(o, world), env: { ...world.env, XDG_CACHE_HOME: cacheHome } })
      times.push(server.initializeMs)
      await server.close()
    } finally {
      rmSync(cacheHome, { recursive: true, force: true })
    }
  }
  return times
}

/**
 * Spawn → initialize, spawn → first list_sessions (10 sessions), RSS at start and after 100 mixed
 * calls: a returning user's starts, after one earlier session (kept open 2 s, as any real one is)
 * saved the code cache; a first start ever is its own row.
 */
const startup = (o: FigureOptions, base: Base) =>
  withWorld(o, 10, 1000, async (world) => {
    const first = await firstStarts(o, world)
    await withServer(o, world, async (server) => {
      await callOk(server.client, "list_sessions")
      await sleep(2000)
    })
    const init: Array<number> = []
    const initCpu: Array<number> = []
    const firstList: Array<number> = []
    const startRss: Array<number> = []
    for (let i = 0; i < o.runs + 2; i++) {
      const server = await start(launch(o, world))
      const t0 = performance.now()
      await callOk(server.client, "list_sessions")
      const listMs = performance.now() - t0
      if (i >= 2) {
        init.push(server.initializeMs)
        initCpu.push(server.initializeCpuMs)
        firstList.push(server.initializeMs + listMs)
        startRss.push(rssMb(server.pid))
      }
      await server.close()
    }
    const idle: Array<number> = []
    const session = world.sessionIds[0]!
    for (let i = 0; i < Math.max(5, Math.round(o.runs / 3)); i++) {
      await withServer(o, world, async (server) => {
        for (let c = 0; c < 100; c++) {
          const k = c % 4
          if (k === 0) await callOk(server.client, "list_sessions")
          else if (k === 1) await callOk(server.client, "get_current_session")
          else if (k === 2)
            await callOk(server.client, "read_terminal", { session_id: session, max_lines: 50 })
          else await callOk(server.client, "run_command", { session_id: session, command: `echo call-${c}` })
        }
        await sleep(1000)
        idle.push(rssMb(server.pid))
      })
    }
    const ratio = init.map((ms) => ms / o.bareInitializeMs)
    return [
      atMost(
        { ...base, figure: "spawn → initialize answered", unit: "ms" },
        init,
        sharedTargets.returningStartMs
      ),
      atMost({ ...base, figure: "spawn → initialize ÷ bare MCP SDK server", unit: "×" }, ratio, 1.3),
      atMost(
        { ...base, figure: "spawn → initialize answered, first start ever (no code cache)", unit: "ms" },
        first,
        sharedTargets.firstStartMs
      ),
      info({ ...base, figure: "CPU time used when initialize is answered", unit: "ms" }, initCpu),
      atMost(
        { ...base, figure: "spawn → first list_sessions answered (10 sessions)", unit: "ms" },
        firstList,
        300
      ),
      info({ ...base, figure: "RSS right after initialize + first list_sessions", unit: "MB" }, startRss),
      atMost({ ...base, figure: "idle RSS after 100 mixed calls", unit: "MB" }, idle, sharedTargets.idleRssMb)
    ]
  })

/** run_command `true`: end to end, the shell's own span, and command-end → result. */
const runTrue = (o: FigureOptions, base: Base) =>
  withWorld(o, 1, 1000, (world) =>
    withServer(o, world, async (server) => {
      const id = world.sessionIds[0]!
      const total: Array<number> = []
      const overhead: Array<number> = []
      const tail: Array<number> = []
      for (let i = 0; i < o.runs + 3; i++) {
        const t0 = performance.now()
        const data = await callOk(server.client, "run_command", { session_id: id, command: "true" })
        const t1 = performance.now()
        if (data.status !== "completed" || data.exit_code !== 0)
          throw new Error(`run_command true: ${data.status}`)
        const span = world.lastCommandSpan(id)
        if (i < 3) continue
        total.push(t1 - t0)
        if (span !== undefined) {
          overhead.push(t1 - t0 - (span.endedAt - span.sentAt))
          tail.push(t1 - span.endedAt)
        }
      }
      return [
        o.backend.targets.runTrueMs === undefined
          ? info({ ...base, figure: "run_command `true`, end to end", unit: "ms" }, total)
          : atMost(
              { ...base, figure: "run_command `true`, end to end", unit: "ms" },
              total,
              o.backend.targets.runTrueMs
            ),
        // Backends whose shell's own span cannot be observed report end-to-end time only.
        ...(overhead.length === 0
          ? []
          : [
              atMost(
                { ...base, figure: "run_command `true`, end to end minus the shell's own time", unit: "ms" },
                overhead,
                5
              ),
              atMost({ ...base, figure: "run_command: command-end event → tool result", unit: "ms" }, tail, 2)
            ])
      ]
    })
  )

/** list_sessions at 1 / 10 / 100 sessions, and whether each added session costs the same. */
const listSessions = async (o: FigureOptions, base: Base) => {
  const rows: Array<Row> = []
  const medians: Array<number> = []
  for (const count of [1, 10, 100]) {
    o.log(`    list_sessions, ${count} session(s)`)
    const times = await withWorld(o, count, 1000, (world) =>
      withServer(o, world, (server) =>
        timed(async () => {
          const data = await callOk(server.client, "list_sessions")
          if ((data.sessions as ReadonlyArray<unknown>).length !== count)
            throw new Error("wrong session count")
        }, o.runs)
      )
    )
    const figure = `list_sessions, ${count} session(s)`
    const row =
      count === 100
        ? atMost({ ...base, figure, unit: "ms" }, times, o.backend.targets.list100Ms)
        : info({ ...base, figure, unit: "ms" }, times)
    rows.push(row)
    medians.push(row.median)
  }
  const [m1, m10, m100] = medians as [number, number, number]
  const early = (m10 - m1) / 9
  const late = (m100 - m10) / 90
  const ratio = late / early
  rows.push({
    ...base,
    figure: "list_sessions: ms per added session, 10→100 ÷ 1→10 (flat = 1)",
    unit: "×",
    runs: o.runs,
    median: ratio,
    p95: Number.NaN,
    target: "≤ 1.5 ×",
    ok: ratio <= 1.5,
    note: `${early.toFixed(2)} ms/session for 1→10, ${late.toFixed(2)} for 10→100`
  })
  return rows
}

export const termpilotFigures = async (o: FigureOptions): Promise<ReadonlyArray<Row>> => {
  const base: Base = { subject: `termpilot (${o.backend.name})`, node: o.node.version }
  const hotPathsOnly = o.backend.figures === "hot-paths"
  const rows: Array<Row> = []
  if (!hotPathsOnly && o.figures.has("startup")) {
    o.log(`  start-up and memory (${o.runs} spawns)`)
    rows.push(...(await startup(o, base)))
  }
  if (o.figures.has("run")) {
    o.log("  run_command `true`")
    rows.push(...(await runTrue(o, base)))
  }
  if (o.figures.has("list")) {
    o.log("  list_sessions")
    rows.push(...(await listSessions(o, base)))
  }
  if (hotPathsOnly) return rows
  rows.push(...(await outputFigures(o, base)))
  if (o.figures.has("wait")) {
    o.log("  wait_for_output")
    rows.push(...(await waitFigures(o, base)))
  }
  if (o.figures.has("commands")) {
    o.log("  list_commands and read_command_output")
    rows.push(...(await commandFigures(o, base)))
  }
  return rows
}
