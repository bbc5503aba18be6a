/**
 * The published package as a user gets it: `npm pack` of the built tree, then `npm install
 * <tarball> --offline` in an empty folder (no dependency to fetch: the bin is one bundle). From
 * that install, `termpilot --version`, `termpilot doctor --json` and `termpilot` over stdio
 * (through the real MCP SDK client, against the fake iTerm2) work, and the install holds only the
 * files package.json lists. Needs the build (`npm run build`; `npm test` builds first).
 */
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

const root = resolve(import.meta.dirname, "../..")
const run = promisify(execFile)
const scratch = mkdtempSync(join(tmpdir(), "tp-installed-"))
const project = join(scratch, "project")
const installed = join(project, "node_modules", "termpilot")
const bin = join(project, "node_modules", ".bin", "termpilot")
let rig: FakeIterm2Rig

/** An environment without the developer's npm/TermPilot settings, HOME leading to the fake iTerm2. */
const env = (): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: rig.home,
  TERMPILOT_OSASCRIPT: "/nonexistent/osascript",
  NO_COLOR: "1",
  npm_config_cache: join(scratch, "npm-cache"),
  npm_config_update_notifier: "false"
})

beforeAll(async () => {
  if (!existsSync(join(root, "dist", "termpilot.main.cjs")))
    throw new Error("dist/termpilot.main.cjs is missing: run `npm run build` first")
  rig = await openFakeIterm2Rig()
  await rig.world.createWindow({ title: "installed-target" })
  const packed = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], {
    cwd: root,
    env: env(),
    encoding: "utf8",
    timeout: 120_000
  })
  const { filename } = (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!
  await run("mkdir", ["-p", project])
  writeFileSync(join(project, "package.json"), '{ "name": "empty", "private": true }\n')
  await run(
    "npm",
    ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", join(scratch, filename)],
    { cwd: project, env: env(), encoding: "utf8", timeout: 120_000 }
  )
}, 240_000)

afterAll(async () => {
  await rig?.close()
  rmSync(scratch, { recursive: true, force: true })
})

describe("the installed tarball", () => {
  it("installs no dependency and ships only the bundle, its map, the licenses and the README", () => {
    expect(readdirSync(join(project, "node_modules")).sort()).toEqual([
      ".bin",
      ".package-lock.json",
      "termpilot"
    ])
    expect(readdirSync(installed).sort()).toEqual(["README.md", "dist", "package.json"])
    expect(readdirSync(join(installed, "dist")).sort()).toEqual([
      "THIRD-PARTY-LICENSES.txt",
      "termpilot.js",
      "termpilot.main.cjs",
      "termpilot.main.cjs.map"
    ])
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<
      string,
      unknown
    >
    expect(manifest.dependencies).toBeUndefined()
  })

  it("prints its version", async () => {
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }
    const result = await run(bin, ["--version"], { env: env(), encoding: "utf8", timeout: 30_000 })
    expect(result.stdout.trim()).toBe(manifest.version)
  })

  it("runs the doctor against the fake iTerm2", async () => {
    const result = await run(bin, ["doctor", "--json"], { env: env(), encoding: "utf8", timeout: 30_000 })
    const report = JSON.parse(result.stdout) as {
      ok: boolean
      checks: Array<{ name: string; status: string }>
    }
    expect(report.ok).toBe(true)
    expect(report.checks.map((c) => `${c.name}:${c.status}`)).toContain("sessions:ok")
  })

  it("serves MCP over stdio to the SDK client", async () => {
    const transport = new StdioClientTransport({ command: bin, args: [], env: env(), stderr: "pipe" })
    transport.stderr?.on("data", () => {})
    const client = new Client({ name: "termpilot-installed", version: "0" })
    await client.connect(transport)
    try {
      expect(client.getServerVersion()?.name).toBe("termpilot")
      const list = await client.callTool({ name: "list_sessions", arguments: {} })
      expect(list.isError ?? false).toBe(false)
      const sessions = (list.structuredContent as { sessions: Array<{ session_title: string }> }).sessions
      expect(sessions.map((s) => s.session_title)).toEqual(["installed-target"])
    } finally {
      await client.close()
    }
  })
})
