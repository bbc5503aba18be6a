/**
 * Colour only on a terminal and never with NO_COLOR: the built CLI's human commands (help, an
 * invalid option, doctor, chatgpt) print no ANSI codes into pipes; on a real pty (node-pty) the
 * help is coloured unless NO_COLOR is set. Needs the build (`npm test` builds first).
 */
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { spawn as spawnPty } from "node-pty"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "../..")
const bin = join(root, "dist/src/cli/bin.js")
const ESC = "\u001b["

let home: string
beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npx tsc -p tsconfig.build.json\` first`)
  home = mkdtempSync(join(tmpdir(), "tp-colour-"))
})
afterAll(() => rmSync(home, { recursive: true, force: true }))

const childEnv = (extra: Record<string, string> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (
      v === undefined ||
      k === "NO_COLOR" ||
      k === "FORCE_COLOR" ||
      k.startsWith("ITERM") ||
      k.startsWith("TERMPILOT")
    )
      continue
    env[k] = v
  }
  // No tunnel-client on PATH: chatgpt commands answer at once.
  return { ...env, HOME: home, XDG_STATE_HOME: home, XDG_CONFIG_HOME: home, PATH: "/usr/bin:/bin", ...extra }
}

const piped = (args: ReadonlyArray<string>) =>
  new Promise<{ stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: childEnv(), timeout: 30_000 },
      (_error, stdout, stderr) => done({ stdout, stderr })
    )
  })

const onPty = (args: ReadonlyArray<string>, extra: Record<string, string> = {}) =>
  new Promise<string>((done, fail) => {
    const term = spawnPty(process.execPath, [bin, ...args], { env: childEnv(extra), cols: 120, rows: 40 })
    let out = ""
    const timer = setTimeout(() => {
      term.kill()
      fail(new Error(`no exit within 30 s: ${JSON.stringify(out)}`))
    }, 30_000)
    term.onData((data) => {
      out += data
    })
    term.onExit(() => {
      clearTimeout(timer)
      done(out)
    })
  })

describe("colour", () => {
  it.each([
    [["--help"]],
    [["--bogus-option"]],
    [["doctor"]],
    [["chatgpt", "--help"]],
    [["chatgpt", "status"]]
  ])("termpilot %j into pipes: plain text, no ANSI codes", async (args) => {
    const { stdout, stderr } = await piped(args)
    expect(`${stdout}${stderr}`.length).toBeGreaterThan(0)
    expect(stdout).not.toContain(ESC)
    expect(stderr).not.toContain(ESC)
  })

  it("on a terminal the help is coloured; with NO_COLOR it is not, and an empty NO_COLOR does not count", async () => {
    const coloured = await onPty(["--help"])
    expect(coloured).toContain("USAGE")
    expect(coloured).toContain(ESC)
    const plain = await onPty(["--help"], { NO_COLOR: "1" })
    expect(plain).toContain("USAGE")
    expect(plain).not.toContain(ESC)
    expect(await onPty(["--help"], { NO_COLOR: "" })).toContain(ESC)
  })
})
