/**
 * Harness — what every figure module shares: the options of one (backend, Node) pass, the groups
 * of figures a run measures (BENCH_FIGURES), timed loops, and a world or a spawned server that is
 * always closed afterwards.
 */
import { performance } from "node:perf_hooks"
import type { BenchBackend, BenchWorld } from "./Backends.js"
import { type Launch, type NodeRuntime, type Started, start } from "./Spawned.js"
import type { Row } from "./Stats.js"

export type Base = Pick<Row, "subject" | "node">

/**
 * The groups of figures a run can be narrowed to (BENCH_FIGURES, comma-separated; all when unset):
 * the floors, the pane stream's CPU and the package are run.ts's, the rest each backend's.
 */
export const FIGURE_GROUPS = [
  "floors",
  "stream",
  "startup",
  "run",
  "list",
  "read",
  "big",
  "wait",
  "commands",
  "package"
] as const
export type FigureGroup = (typeof FIGURE_GROUPS)[number]

/** BENCH_FIGURES's groups; an unknown name fails the run, naming the known ones. */
export const figureGroups = (setting: string | undefined): ReadonlySet<FigureGroup> => {
  if (setting === undefined || setting.trim() === "") return new Set(FIGURE_GROUPS)
  const names = setting.split(",").map((name) => name.trim().toLowerCase())
  const unknown = names.filter((name) => !(FIGURE_GROUPS as ReadonlyArray<string>).includes(name))
  if (unknown.length > 0)
    throw new Error(`BENCH_FIGURES: unknown ${unknown.join(", ")}; known: ${FIGURE_GROUPS.join(", ")}`)
  return new Set(names as Array<FigureGroup>)
}

export interface FigureOptions {
  readonly backend: BenchBackend
  readonly node: NodeRuntime
  readonly bin: string
  /** Runs per timed figure (≥ 30 for the table of record). */
  readonly runs: number
  /** Median spawn → initialize of the bare MCP SDK server on this Node, for the ratio row (NaN unmeasured). */
  readonly bareInitializeMs: number
  /** Which of the backend's figures to measure. */
  readonly figures: ReadonlySet<FigureGroup>
  readonly log: (line: string) => void
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const timed = async (once: () => Promise<void>, runs: number, warmup = 2): Promise<Array<number>> => {
  for (let i = 0; i < warmup; i++) await once()
  const times: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await once()
    times.push(performance.now() - t0)
  }
  return times
}

export const withWorld = async <A>(
  o: FigureOptions,
  sessions: number,
  scrollback: number,
  use: (world: BenchWorld) => Promise<A>
) => {
  const world = await o.backend.open({ sessions, scrollback })
  try {
    return await use(world)
  } finally {
    await world.close()
  }
}

export const launch = (o: FigureOptions, world: BenchWorld): Launch => ({
  node: o.node,
  args: [o.bin],
  env: world.env
})

export const withServer = async <A>(
  o: FigureOptions,
  world: BenchWorld,
  use: (server: Started) => Promise<A>
) => {
  const server = await start(launch(o, world))
  try {
    await world.afterStart?.(server)
    return await use(server)
  } finally {
    await server.close()
  }
}
