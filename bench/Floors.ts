/**
 * Floors — what any Node MCP server pays before doing anything, measured in the same run as
 * TermPilot so a reader can judge its figures: bare `node -e ''`, and a bare MCP SDK stdio server
 * with one tool (bench/BareServer.ts, bundled with esbuild like TermPilot's bin).
 */
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { build } from "esbuild"
import { baseEnv, callOk, type NodeRuntime, rssMb, start } from "./Spawned.js"
import { info, type Row } from "./Stats.js"

/** Bundles the bare server next to TermPilot's bundle; returns its path. */
export const buildBareServer = async (root: string): Promise<string> => {
  const outfile = join(root, "dist", "bench", "bare-server.bundle.js")
  await build({
    absWorkingDir: root,
    entryPoints: ["bench/BareServer.ts"],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minifyWhitespace: true,
    minifySyntax: true,
    banner: {
      js: 'import { createRequire as __r } from "node:module";\nconst require = __r(import.meta.url);'
    },
    logLevel: "warning"
  })
  return outfile
}

const exitTime = (node: NodeRuntime) =>
  new Promise<number>((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(node.execPath, ["-e", ""], { stdio: "ignore" })
    child.once("error", reject)
    child.once("exit", () => resolve(performance.now() - t0))
  })

export interface FloorFigures {
  readonly rows: ReadonlyArray<Row>
  /** Median spawn → initialize of the bare server. */
  readonly bareInitializeMs: number
}

export const floorFigures = async (
  node: NodeRuntime,
  bareServer: string,
  runs: number
): Promise<FloorFigures> => {
  const base = { subject: "floor", node: node.version }
  const nodeTimes: Array<number> = []
  for (let i = 0; i < runs + 2; i++) {
    const ms = await exitTime(node)
    if (i >= 2) nodeTimes.push(ms)
  }
  const env = baseEnv(mkdtempSync(join(tmpdir(), "tp-bench-bare-")))
  const init: Array<number> = []
  const initCpu: Array<number> = []
  const rss: Array<number> = []
  const rssAfterCalls: Array<number> = []
  for (let i = 0; i < runs + 2; i++) {
    const server = await start({ node, args: [bareServer], env })
    if (i >= 2) {
      init.push(server.initializeMs)
      initCpu.push(server.initializeCpuMs)
      rss.push(rssMb(server.pid))
    }
    if (i >= 2 && i < 2 + Math.max(5, Math.round(runs / 3))) {
      for (let c = 0; c < 100; c++) await callOk(server.client, "echo", { text: `call ${c}` })
      await new Promise((resolve) => setTimeout(resolve, 1000))
      rssAfterCalls.push(rssMb(server.pid))
    }
    await server.close()
  }
  const initRow = info(
    { ...base, figure: "bare MCP SDK server: spawn → initialize answered", unit: "ms" },
    init
  )
  return {
    bareInitializeMs: initRow.median,
    rows: [
      info({ ...base, figure: "node -e '': spawn → exit", unit: "ms" }, nodeTimes),
      initRow,
      info(
        { ...base, figure: "bare MCP SDK server: CPU time used when initialize is answered", unit: "ms" },
        initCpu
      ),
      info({ ...base, figure: "bare MCP SDK server: RSS after initialize", unit: "MB" }, rss),
      info({ ...base, figure: "bare MCP SDK server: idle RSS after 100 calls", unit: "MB" }, rssAfterCalls)
    ]
  }
}
