#!/usr/bin/env node
/**
 * test-prerequisites — the programs the test suite drives for real (shells, tmux, full-screen
 * programs, the input recorder, sshd), checked before anything else runs: `npm test` runs it first
 * (the `pretest` script) and vitest runs it again as its globalSetup (for `npx vitest run …`). A
 * missing program fails the run at once with one line per program and the apt-get command that
 * installs it; nothing is skipped, in CI or out of it. Run as a program it prints the same lines.
 * Programs are looked up in PATH; sshd (not on a normal user's PATH) in /usr/sbin and /sbin, or in
 * TERMPILOT_TEST_SBIN_DIRS (colon-separated) when set: that is how its own test hides one.
 * With TERMPILOT_TEST_TMUX_VERSION set (.ci/run's tmux matrix), `tmux -V` on PATH must name exactly
 * that version, so a matrix run cannot quietly test another tmux.
 * The Node.js running the tests must satisfy package.json's engines (">=22.19"); with
 * TERMPILOT_TEST_NODE_VERSION set (.ci/run's Node 22 run), it must be exactly that version.
 */
import { execFileSync } from "node:child_process"
import { accessSync, constants, readFileSync, statSync } from "node:fs"
import { delimiter, dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** Every program the tests need: the name looked up, the Debian package that installs it, why. */
export const PREREQUISITES = [
  { program: "bash", apt: "bash", why: "shell integration, tmux panes, the fake iTerm2's shells" },
  { program: "tmux", apt: "tmux", why: "the tmux backend is tested against the real program" },
  { program: "zsh", apt: "zsh", why: "the zsh shell-integration snippet runs in real zsh" },
  { program: "fish", apt: "fish", why: "the fish shell integration" },
  { program: "vi", apt: "vim-tiny", why: "a full-screen program in a pane" },
  { program: "less", apt: "less", why: "a full-screen program in a pane" },
  { program: "script", apt: "bsdutils", why: "util-linux script -I records what a pane received" },
  { program: "ssh", apt: "openssh-client", why: "remote-shell tests ssh into their own sshd" },
  { program: "ssh-keygen", apt: "openssh-client", why: "remote-shell tests make throwaway keys" },
  { program: "sshd", apt: "openssh-server", why: "remote-shell tests start their own sshd", sbin: true }
]

const isExecutable = (file) => {
  try {
    if (!statSync(file).isFile()) return false
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The prerequisites not found, looking in `path` (and, for sbin programs, in `sbinDirs`). */
export const missingPrograms = (env = process.env) => {
  const dirs = (env.PATH ?? "").split(delimiter).filter((d) => d !== "")
  const sbin = (env.TERMPILOT_TEST_SBIN_DIRS ?? "/usr/sbin:/sbin").split(":").filter((d) => d !== "")
  return PREREQUISITES.filter(
    (p) => ![...dirs, ...(p.sbin === true ? sbin : [])].some((d) => isExecutable(join(d, p.program)))
  )
}

/** One line per missing program with its install command, then one command for them all. */
export const report = (missing) => [
  ...missing.map(
    (p) => `test prerequisite missing: ${p.program} (${p.why}); install: sudo apt-get install -y ${p.apt}`
  ),
  `install them all: sudo apt-get install -y ${[...new Set(missing.map((p) => p.apt))].join(" ")}`,
  "(the README's Development section lists what the tests need)"
]

/** Why `tmux -V` on PATH is not the version `env` asks for; null when it is, or none is asked for. */
export const wrongTmux = (env = process.env) => {
  const wanted = env.TERMPILOT_TEST_TMUX_VERSION
  if (wanted === undefined || wanted === "") return null
  let said
  try {
    said = execFileSync("tmux", ["-V"], { env, encoding: "utf8", timeout: 5_000 }).trim()
  } catch (error) {
    said = `no runnable tmux (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`
  }
  return said === `tmux ${wanted}`
    ? null
    : `TERMPILOT_TEST_TMUX_VERSION is ${wanted}, but tmux -V on PATH says: ${said}`
}

/** package.json's engines.node (">=22.19") as the oldest Node.js version the tests accept: "22.19". */
export const minimumNode = () => {
  const manifest = JSON.parse(
    readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../package.json"), "utf8")
  )
  const match = /^>=(\d+\.\d+)$/.exec(manifest.engines?.node ?? "")
  if (match === null)
    throw new Error(`package.json's engines.node is not ">=MAJOR.MINOR": ${manifest.engines?.node}`)
  return match[1]
}

/** Why the Node.js running this (`version`) is not one the tests accept; null when it is. */
export const wrongNode = (env = process.env, version = process.versions.node) => {
  const running = `Node.js v${version} (${process.execPath})`
  const minimum = minimumNode()
  const [major, minor] = version.split(".").map(Number)
  const [minMajor, minMinor] = minimum.split(".").map(Number)
  if (!(major > minMajor || (major === minMajor && minor >= minMinor)))
    return `test prerequisite: Node.js ${minimum} or newer (package.json's engines), but this is ${running}; put Node.js 24 LTS first on PATH (.ci/run installs it: npm ci --prefix .ci/node24)`
  const wanted = env.TERMPILOT_TEST_NODE_VERSION
  if (wanted === undefined || wanted === "" || wanted === version) return null
  return `TERMPILOT_TEST_NODE_VERSION is ${wanted}, but the tests run on ${running}`
}

/** Prints the report and ends the process with status 1 when something is missing or the wrong tmux or Node. */
const check = () => {
  const missing = missingPrograms()
  const node = wrongNode()
  const lines = [...(node === null ? [] : [node]), ...(missing.length === 0 ? [] : report(missing))]
  const tmux = missing.some((p) => p.program === "tmux") ? null : wrongTmux()
  if (tmux !== null) lines.push(tmux)
  if (lines.length === 0) return
  for (const line of lines) process.stderr.write(`${line}\n`)
  process.exit(1)
}

/** vitest globalSetup: ends the run before any test file is collected (vitest's own report would bury the lines). */
export default function setup() {
  check()
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) check()
