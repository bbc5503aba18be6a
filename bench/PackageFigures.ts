/**
 * PackageFigures — what `npm install` of the packed package costs a user: `npm pack` of this
 * tree, then `npm install <tarball>` in an empty folder; the size of node_modules and its packages.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Row } from "./Stats.js"

const duBytes = (dir: string): number => {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += duBytes(path)
    else if (entry.isFile()) total += statSync(path).size
  }
  return total
}

export const packageFigures = (root: string): ReadonlyArray<Row> => {
  const scratch = mkdtempSync(join(tmpdir(), "tp-bench-pack-"))
  try {
    const env = {
      ...process.env,
      npm_config_cache: join(scratch, "cache"),
      npm_config_update_notifier: "false"
    }
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], {
        cwd: root,
        env,
        encoding: "utf8",
        timeout: 120_000
      })
    ) as Array<{ filename: string; size: number }>
    const project = join(scratch, "project")
    execFileSync("mkdir", ["-p", project])
    writeFileSync(join(project, "package.json"), '{ "name": "empty", "private": true }\n')
    // Not --offline: a package with dependencies must be able to fetch them for a fair figure.
    execFileSync("npm", ["install", "--no-audit", "--no-fund", join(scratch, packed[0]!.filename)], {
      cwd: project,
      env,
      stdio: "ignore",
      timeout: 600_000
    })
    const modules = join(project, "node_modules")
    const lock = JSON.parse(readFileSync(join(modules, ".package-lock.json"), "utf8")) as {
      packages: Record<string, unknown>
    }
    const packages = Object.keys(lock.packages).filter((p) => p.startsWith("node_modules/")).length
    const mb = duBytes(modules) / 1_000_000
    const base = { subject: "termpilot (package)", node: "", runs: 1, p95: Number.NaN }
    const note = `tarball ${(packed[0]!.size / 1_000_000).toFixed(1)} MB`
    return [
      {
        ...base,
        figure: "npm install of the packed tarball: node_modules size",
        unit: "MB",
        median: mb,
        target: "≤ 40 MB",
        ok: mb <= 40,
        note
      },
      {
        ...base,
        figure: "npm install of the packed tarball: packages",
        unit: "count",
        median: packages,
        target: "≤ 60",
        ok: packages <= 60
      }
    ]
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}
