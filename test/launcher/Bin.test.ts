/**
 * The published bin (`node dist/termpilot.js`, built by `npm run build`) and its V8 code cache, as
 * a user starts it over stdio through the real MCP SDK client: the first start saves the cache, the
 * next ones use it (V8 accepts it: it is not written again), a damaged cache is replaced, and a
 * cache directory others may write, NODE_DISABLE_COMPILE_CACHE=1 or source-mapped stack traces mean
 * no cache, with the server working the same. On a Node older than package.json's engines the bin
 * starts nothing: one line on stderr, exit code 1.
 */
import { spawnSync } from "node:child_process"
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { MINIMUM_NODE } from "../../src/domain/HealthCheck.js"
import { decodeCache } from "../../src/launcher/CodeCache.js"

const bin = resolve(import.meta.dirname, "../../dist/termpilot.js")
let scratch: string
let cacheHome: string
let cacheDir: string

beforeEach(() => {
  if (!existsSync(bin)) throw new Error("dist/termpilot.js is missing: run `npm run build` first")
  scratch = mkdtempSync(join(tmpdir(), "tp-bin-"))
  cacheHome = join(scratch, "cache")
  cacheDir = join(cacheHome, "termpilot")
})
afterEach(() => rmSync(scratch, { recursive: true, force: true }))

/** A user's clean environment: no iTerm2 socket, a private tmux dir, the cache under `scratch`. */
const env = (extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: scratch,
  XDG_CACHE_HOME: cacheHome,
  TMUX_TMPDIR: scratch,
  TERMPILOT_OSASCRIPT: "/nonexistent/osascript",
  NO_COLOR: "1",
  ...extra
})

/** Starts the bin, checks it serves MCP, keeps it running `aliveMs`, then closes it. */
const session = async (aliveMs: number, extra: Record<string, string> = {}): Promise<void> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin],
    env: env(extra),
    stderr: "pipe"
  })
  transport.stderr?.on("data", () => {})
  const client = new Client({ name: "termpilot-bin-test", version: "0" })
  await client.connect(transport)
  try {
    expect(client.getServerVersion()?.name).toBe("termpilot")
    const tools = await client.listTools()
    expect(tools.tools.map((t) => t.name)).toContain("read_terminal")
    await new Promise((r) => setTimeout(r, aliveMs))
  } finally {
    await client.close()
  }
}

const caches = (): Array<string> =>
  existsSync(cacheDir) ? readdirSync(cacheDir).filter((name) => name.endsWith(".v8cache")) : []

/** The one cache file, once it is there (a start without one saves it a second in). */
const theCache = async (): Promise<string> => {
  for (let i = 0; i < 100 && caches().length === 0; i++) await new Promise((r) => setTimeout(r, 50))
  const found = caches()
  expect(found).toHaveLength(1)
  return join(cacheDir, found[0] ?? "")
}

describe("the bin's code cache", () => {
  it("is saved by the first start (0700 directory, 0600 intact file) and used, not rewritten, by the next", async () => {
    await session(1_500)
    const file = await theCache()
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(decodeCache(readFileSync(file))?.length).toBeGreaterThan(100_000)
    const before = statSync(file)
    // Had V8 rejected it, this start would write it again after one second.
    await session(1_500)
    const after = statSync(file)
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs])
    expect(caches()).toHaveLength(1)
  }, 30_000)

  it("replaces a damaged cache, and the damaged start still serves", async () => {
    await session(1_500)
    const file = await theCache()
    const bytes = readFileSync(file)
    bytes[bytes.length - 10] = (bytes[bytes.length - 10] ?? 0) ^ 0xff
    writeFileSync(file, bytes)
    expect(decodeCache(readFileSync(file))).toBeUndefined()
    await session(1_500)
    expect(decodeCache(readFileSync(await theCache()))).toBeDefined()
  }, 30_000)

  it("is neither read nor written in a directory others may write", async () => {
    mkdirSync(cacheDir, { recursive: true })
    chmodSync(cacheDir, 0o777)
    await session(1_500)
    expect(caches()).toEqual([])
  }, 30_000)

  it("is skipped, and the server still serves, when the cache directory's place holds a file", async () => {
    mkdirSync(cacheHome, { recursive: true })
    writeFileSync(cacheDir, "not a directory")
    await session(1_500)
    expect(readFileSync(cacheDir, "utf8")).toBe("not a directory")
  }, 30_000)

  it("is off with NODE_DISABLE_COMPILE_CACHE=1, and with source-mapped stack traces", async () => {
    await session(1_500, { NODE_DISABLE_COMPILE_CACHE: "1" })
    expect(existsSync(cacheDir)).toBe(false)
    await session(1_500, { NODE_OPTIONS: "--enable-source-maps" })
    expect(existsSync(cacheDir)).toBe(false)
  }, 30_000)
})

describe("the bin on an older Node", () => {
  /** Starts the bin with Node reporting `version` (a preload redefines it before the bin runs). */
  const startAs = (version: string) => {
    const preload = join(scratch, "node-version.cjs")
    writeFileSync(
      preload,
      `Object.defineProperty(process.versions, "node", { value: ${JSON.stringify(version)} })
Object.defineProperty(process, "version", { value: ${JSON.stringify(`v${version}`)} })`
    )
    return spawnSync(process.execPath, ["--require", preload, bin], {
      env: env(),
      input: "",
      encoding: "utf8",
      timeout: 30_000
    })
  }

  it("refuses to start below 22.19: one line on stderr saying what to install, exit code 1, nothing served", () => {
    expect(MINIMUM_NODE).toBe("22.19")
    for (const version of ["22.18.0", "20.20.2"]) {
      const result = startAs(version)
      expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
        status: 1,
        stdout: "",
        stderr: `termpilot: Node.js 22.19 or newer is required, this is Node.js v${version} (${process.execPath}); install Node.js 24 LTS (or 22.19+) from https://nodejs.org/en/download\n`
      })
    }
    expect(existsSync(cacheDir)).toBe(false)
  })

  it("starts on 22.19.0 (it then serves until its stdin ends)", () => {
    const result = startAs("22.19.0")
    expect(result.status, result.stderr).toBe(0)
    expect(result.stderr).not.toContain("is required")
  })
})
