/**
 * StreamFigures — the CPU TermPilot's tmux pane-stream parser (VtParser, marks, rendering) spends
 * on 5 MB of command output, on one Node, each run in a fresh process (bench/StreamCpu.ts); the
 * issue's budget is well under a second, the target here a quarter of one.
 */
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import type { NodeRuntime } from "./Spawned.js"
import { atMost, type Row } from "./Stats.js"

export const streamFigures = (node: NodeRuntime, root: string, runs: number): ReadonlyArray<Row> => {
  const script = join(root, "dist", "bench", "StreamCpu.js")
  const samples: Array<number> = []
  let lines = 0
  for (let i = 0; i < Math.max(3, Math.round(runs / 3)); i++) {
    const run = spawnSync(node.execPath, [script, "5"], { encoding: "utf8", timeout: 60_000 })
    if (run.status !== 0) throw new Error(`StreamCpu failed: ${run.stderr}`)
    const result = JSON.parse(run.stdout) as { cpuMs: number; lines: number }
    samples.push(result.cpuMs)
    lines = result.lines
  }
  const base = { subject: "termpilot (tmux)", node: node.version, unit: "ms" as const }
  return [
    {
      ...atMost({ ...base, figure: "pane stream: 5 MB of output parsed and rendered (CPU)" }, samples, 250),
      note: `${lines} lines counted`
    }
  ]
}
