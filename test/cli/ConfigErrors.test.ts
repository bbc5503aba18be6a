/**
 * A configuration the user must fix (a bad config file, a bad environment value) stops the built
 * `termpilot` with one line on stderr naming the problem, nothing on stdout, and exit code 2.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const bin = join(import.meta.dirname, "..", "..", "dist/src/cli/bin.js")

const run = (env: Record<string, string>) => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npx tsc -p tsconfig.build.json\` first`)
  const home = mkdtempSync(join(tmpdir(), "tp-config-errors-"))
  return spawnSync(process.execPath, [bin], {
    env: { PATH: process.env.PATH ?? "", HOME: home, ...env },
    input: "",
    encoding: "utf8",
    timeout: 30_000
  })
}

describe("configuration errors", () => {
  it("names the config file and the unknown key", () => {
    const dir = mkdtempSync(join(tmpdir(), "tp-xdg-"))
    mkdirSync(join(dir, "termpilot"))
    writeFileSync(join(dir, "termpilot", "config.json"), JSON.stringify({ readonly: true }))
    const result = run({ XDG_CONFIG_HOME: dir })
    expect(result.status).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr.trim()).toBe(
      `termpilot: config file ${join(dir, "termpilot", "config.json")}: unknown key "readonly" (allowed here: "$schema", "readOnly", "toolDeadlineMs", "redaction", "audit", "policy", "approval", "backends", "tmux")`
    )
  })

  it("names the environment variable with a bad value", () => {
    const result = run({ TERMPILOT_ITERM2_REQUEST_TIMEOUT_MS: "soon" })
    expect(result.status).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toMatch(
      /^termpilot: invalid environment setting: .*TERMPILOT_ITERM2_REQUEST_TIMEOUT_MS/
    )
    expect(result.stderr.split("\n").filter((l) => l !== "")).toHaveLength(1)
  })

  it("names TERMPILOT_BACKENDS when it lists an unknown backend", () => {
    const result = run({ TERMPILOT_BACKENDS: "iterm2,screen" })
    expect(result.status).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toMatch(/^termpilot: invalid environment setting: .*TERMPILOT_BACKENDS must be/)
  })
})
