/**
 * The code cache's file rules, on real files in a temp directory: where it lives, which file a
 * source and runtime get, what is never read (damaged, writable by others, a symlink, another
 * user's), the atomic 0600 write and the pruning to the newest few.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import {
  cacheDirectory,
  cacheFile,
  decodeCache,
  encodeCache,
  ensurePrivateDirectory,
  KEPT_CACHES,
  readCache,
  writeCache
} from "../../src/launcher/CodeCache.js"

let scratch: string
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "tp-codecache-"))
})
afterEach(() => rmSync(scratch, { recursive: true, force: true }))

const runtime = ["v20.20.2", "x64", "", ""]
const data = Buffer.from("bytecode of the bundle, as V8 would write it")

describe("cacheDirectory", () => {
  it("uses an absolute XDG_CACHE_HOME, else ~/.cache, and ~/Library/Caches on macOS", () => {
    expect(cacheDirectory({ XDG_CACHE_HOME: "/x/cache" }, "linux", "/home/u")).toBe("/x/cache/termpilot")
    expect(cacheDirectory({ XDG_CACHE_HOME: "relative" }, "linux", "/home/u")).toBe(
      "/home/u/.cache/termpilot"
    )
    expect(cacheDirectory({}, "linux", "/home/u")).toBe("/home/u/.cache/termpilot")
    expect(cacheDirectory({}, "darwin", "/Users/u")).toBe("/Users/u/Library/Caches/termpilot")
  })

  it("is off with NODE_DISABLE_COMPILE_CACHE, or without an absolute home", () => {
    expect(cacheDirectory({ NODE_DISABLE_COMPILE_CACHE: "1" }, "linux", "/home/u")).toBeUndefined()
    expect(cacheDirectory({ NODE_DISABLE_COMPILE_CACHE: "0" }, "linux", "/home/u")).toBe(
      "/home/u/.cache/termpilot"
    )
    expect(cacheDirectory({}, "linux", "")).toBeUndefined()
    expect(cacheDirectory({}, "linux", "home")).toBeUndefined()
  })
})

describe("cacheFile", () => {
  it("names one file per exact source and runtime", () => {
    const base = cacheFile(scratch, runtime, "source A")
    expect(base.startsWith(`${scratch}/`)).toBe(true)
    expect(base.endsWith(".v8cache")).toBe(true)
    expect(cacheFile(scratch, runtime, "source A")).toBe(base)
    // Same length, other text: V8 alone would take the other's cache.
    expect(cacheFile(scratch, runtime, "source B")).not.toBe(base)
    expect(cacheFile(scratch, ["v24.22.3", "x64", "", ""], "source A")).not.toBe(base)
    expect(cacheFile(scratch, ["v20.20.2", "x64", "", "--enable-source-maps"], "source A")).not.toBe(base)
    // Parts cannot run into each other.
    expect(cacheFile(scratch, ["ab", "c"], "s")).not.toBe(cacheFile(scratch, ["a", "bc"], "s"))
  })
})

describe("encodeCache / decodeCache", () => {
  it("gives back the data, and nothing for a damaged or short file", () => {
    const bytes = encodeCache(data)
    expect(decodeCache(bytes)?.equals(data)).toBe(true)
    const flipped = Buffer.from(bytes)
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1
    expect(decodeCache(flipped)).toBeUndefined()
    expect(decodeCache(bytes.subarray(0, bytes.length - 1))).toBeUndefined()
    expect(decodeCache(bytes.subarray(0, 32))).toBeUndefined()
    expect(decodeCache(Buffer.alloc(0))).toBeUndefined()
  })
})

describe("ensurePrivateDirectory", () => {
  it("creates the directory 0700, parents included", () => {
    const dir = join(scratch, "a", "b", "termpilot")
    expect(ensurePrivateDirectory(dir)).toBe(true)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
  })

  it("refuses a directory others may write, and a symlink", () => {
    const open = join(scratch, "open")
    mkdirSync(open, { mode: 0o700 })
    chmodSync(open, 0o777)
    expect(ensurePrivateDirectory(open)).toBe(false)
    chmodSync(open, 0o720)
    expect(ensurePrivateDirectory(open)).toBe(false)
    const real = join(scratch, "real")
    mkdirSync(real, { mode: 0o700 })
    const link = join(scratch, "link")
    symlinkSync(real, link)
    expect(ensurePrivateDirectory(link)).toBe(false)
  })
})

describe("readCache", () => {
  const write = (name: string, mode: number, bytes: Buffer = encodeCache(data)) => {
    const file = join(scratch, name)
    writeFileSync(file, bytes, { mode })
    chmodSync(file, mode)
    return file
  }

  it("reads an intact cache of ours", () => {
    expect(readCache(write("ok.v8cache", 0o600))?.equals(data)).toBe(true)
    expect(readCache(write("readable.v8cache", 0o644))?.equals(data)).toBe(true)
  })

  it("never reads a missing, damaged, writable-by-others or symlinked file", () => {
    expect(readCache(join(scratch, "none.v8cache"))).toBeUndefined()
    const damaged = encodeCache(data)
    damaged[40] = (damaged[40] ?? 0) ^ 0xff
    expect(readCache(write("damaged.v8cache", 0o600, damaged))).toBeUndefined()
    expect(readCache(write("shared.v8cache", 0o666))).toBeUndefined()
    expect(readCache(write("group.v8cache", 0o620))).toBeUndefined()
    const link = join(scratch, "link.v8cache")
    symlinkSync(write("target.v8cache", 0o600), link)
    expect(readCache(link)).toBeUndefined()
  })

  it.runIf(process.getuid?.() === 0)("never reads another user's file", () => {
    const file = write("theirs.v8cache", 0o600)
    chownSync(file, 4242, 4242)
    expect(readCache(file)).toBeUndefined()
  })
})

describe("writeCache", () => {
  it("writes an intact 0600 file and leaves no temporary file", () => {
    const file = cacheFile(scratch, runtime, "source")
    writeCache(file, data)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(decodeCache(readFileSync(file))?.equals(data)).toBe(true)
    expect(readdirSync(scratch)).toEqual([file.slice(scratch.length + 1)])
  })

  it(`keeps the newest ${KEPT_CACHES} caches and nothing else of its own`, () => {
    const old = Array.from({ length: 6 }, (_, i) => {
      const file = join(scratch, `old-${i}.v8cache`)
      writeFileSync(file, "x")
      const at = new Date(Date.UTC(2026, 0, 1 + i))
      utimesSync(file, at, at)
      return file
    })
    writeFileSync(join(scratch, "unrelated.txt"), "kept")
    const fresh = cacheFile(scratch, runtime, "source")
    writeCache(fresh, data)
    expect(readdirSync(scratch).sort()).toEqual(
      [fresh, old[5], old[4], old[3], join(scratch, "unrelated.txt")]
        .map((f) => f?.slice(scratch.length + 1))
        .sort()
    )
    expect(existsSync(old[0] ?? "")).toBe(false)
  })
})
