/**
 * scripts/test-prerequisites.mjs, run as `npm test` runs it (node, before anything else) and as
 * vitest's globalSetup, with a PATH that lacks programs: it fails at once with one line per
 * missing program and the apt-get command that installs it, and passes when everything is there.
 * The PATH is a temp dir of links to this machine's real programs, minus the ones hidden. The Node
 * running the tests must satisfy package.json's engines (and, asked for, be exactly one version).
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "../..")
const script = join(root, "scripts/test-prerequisites.mjs")
const PROGRAMS = ["bash", "tmux", "zsh", "fish", "vi", "less", "script", "ssh", "ssh-keygen"]

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const which = (program: string, extra = ""): string => {
  const found = spawnSync("sh", ["-c", `PATH="$PATH${extra}" command -v ${program}`], { encoding: "utf8" })
  const path = found.stdout.trim()
  if (found.status !== 0 || path === "") throw new Error(`this machine lacks ${program}`)
  return path
}

/** A PATH dir and an sbin dir holding links to the real programs, except `hidden`. */
const machineWithout = (hidden: ReadonlyArray<string>) => {
  const dir = mkdtempSync(join(tmpdir(), "tp-prereq-"))
  dirs.push(dir)
  const bin = join(dir, "bin")
  const sbin = join(dir, "sbin")
  mkdirSync(bin)
  mkdirSync(sbin)
  symlinkSync(process.execPath, join(bin, "node"))
  for (const program of PROGRAMS.filter((p) => !hidden.includes(p)))
    symlinkSync(which(program), join(bin, program))
  if (!hidden.includes("sshd")) symlinkSync(which("sshd", ":/usr/sbin:/sbin"), join(sbin, "sshd"))
  return { PATH: bin, TERMPILOT_TEST_SBIN_DIRS: sbin, HOME: dir }
}

const run = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  spawnSync(process.execPath, args, { cwd: root, env, encoding: "utf8", timeout: 60_000 })

describe("test prerequisites", () => {
  it("passes, silently, when every program is there", () => {
    const result = run([script], machineWithout([]))
    expect({ status: result.status, stderr: result.stderr, stdout: result.stdout }).toEqual({
      status: 0,
      stderr: "",
      stdout: ""
    })
  })

  it("fails with one line per missing program and the command that installs it", () => {
    const result = run([script], machineWithout(["zsh", "script", "sshd"]))
    expect(result.status).toBe(1)
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^test prerequisite missing: zsh \(.+\); install: sudo apt-get install -y zsh$/),
      expect.stringMatching(
        /^test prerequisite missing: script \(.+\); install: sudo apt-get install -y bsdutils$/
      ),
      expect.stringMatching(
        /^test prerequisite missing: sshd \(.+\); install: sudo apt-get install -y openssh-server$/
      ),
      "install them all: sudo apt-get install -y zsh bsdutils openssh-server",
      "(the README's Development section lists what the tests need)"
    ])
  })

  it("with TERMPILOT_TEST_TMUX_VERSION, fails unless tmux -V on PATH is exactly that version", () => {
    const env = machineWithout([])
    const version = spawnSync("tmux", ["-V"], { encoding: "utf8" })
      .stdout.trim()
      .replace(/^tmux /, "")
    expect(run([script], { ...env, TERMPILOT_TEST_TMUX_VERSION: version }).status).toBe(0)
    const wrong = run([script], { ...env, TERMPILOT_TEST_TMUX_VERSION: "9.9z" })
    expect(wrong.status).toBe(1)
    expect(wrong.stderr.trim()).toBe(
      `TERMPILOT_TEST_TMUX_VERSION is 9.9z, but tmux -V on PATH says: tmux ${version}`
    )
  })

  it("fails on a Node.js older than package.json's engines (22.19), and passes on 22.19.0", () => {
    const env = machineWithout([])
    const asNode = (version: string) => {
      const preload = join(env.HOME, `node-${version}.cjs`)
      writeFileSync(
        preload,
        `Object.defineProperty(process.versions, "node", { value: ${JSON.stringify(version)} })`
      )
      return run(["--require", preload, script], env)
    }
    const old = asNode("22.18.0")
    expect(old.status).toBe(1)
    expect(old.stderr).toBe(
      `test prerequisite: Node.js 22.19 or newer (package.json's engines), but this is Node.js v22.18.0 (${process.execPath}); put Node.js 24 LTS first on PATH (.ci/run installs it: npm ci --prefix .ci/node24)\n`
    )
    expect(asNode("22.19.0")).toMatchObject({ status: 0, stderr: "" })
  })

  it("with TERMPILOT_TEST_NODE_VERSION, fails unless the tests run on exactly that Node.js", () => {
    const env = machineWithout([])
    expect(run([script], { ...env, TERMPILOT_TEST_NODE_VERSION: process.versions.node }).status).toBe(0)
    const wrong = run([script], { ...env, TERMPILOT_TEST_NODE_VERSION: "22.99.0" })
    expect(wrong.status).toBe(1)
    expect(wrong.stderr.trim()).toBe(
      `TERMPILOT_TEST_NODE_VERSION is 22.99.0, but the tests run on Node.js ${process.version} (${process.execPath})`
    )
  })

  it("fails `npm test` before the typecheck starts (its pretest)", () => {
    const env = machineWithout(["fish"])
    // npm itself, and the sh it runs scripts with.
    for (const program of ["npm", "sh"]) symlinkSync(which(program), join(env.PATH, program))
    const result = spawnSync("npm", ["test"], { cwd: root, env, encoding: "utf8", timeout: 60_000 })
    expect(result.status, result.stdout + result.stderr).not.toBe(0)
    expect(result.stderr).toContain("test prerequisite missing: fish")
    expect(result.stdout).not.toContain("tsc -p tsconfig.json")
  })

  it("fails `vitest run` before any test file runs, in CI and out of it", () => {
    const vitest = join(root, "node_modules/vitest/vitest.mjs")
    for (const ci of ["true", ""]) {
      const env = { ...machineWithout(["fish"]), CI: ci }
      const result = run([vitest, "run", "test/domain/TextBounds.test.ts"], env)
      expect(result.status, result.stdout + result.stderr).not.toBe(0)
      const output = result.stdout + result.stderr
      expect(output).toContain("test prerequisite missing: fish")
      expect(output).toContain("sudo apt-get install -y fish")
      expect(output).not.toMatch(/TextBounds|Test Files/)
    }
  })
})
