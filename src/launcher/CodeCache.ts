/**
 * TermPilot's V8 code cache: the bytecode of the bundle, saved once by a running server and handed
 * back to V8 by the next start, so a start skips most of the compiling (issue 9: start-up). Node 20
 * has no compile cache of its own; this one also keeps the functions compiled while the server
 * started, which Node's does not.
 *
 * Fail closed: the cache lives in a directory only this user may write (`$XDG_CACHE_HOME/termpilot`,
 * else `~/.cache/termpilot`; macOS `~/Library/Caches/termpilot`), created 0700; a directory or file
 * that another user could write, a symlink, or a file whose digest does not match is never read.
 * V8 checks a cache only against the source's length, so the file is named after a digest of
 * the Node version and the exact source: a cache can only ever meet the code it was made from.
 * Nothing here may stop TermPilot from starting: every failure means "no cache".
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
import { createHash } from "node:crypto"
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeFileSync
} from "node:fs"
import { homedir } from "node:os"
import { dirname, isAbsolute, join } from "node:path"

/** How many caches (one per bundle and Node version) are kept; the oldest others are deleted. */
export const KEPT_CACHES = 4
const SUFFIX = ".v8cache"
const DIGEST_BYTES = 32

const digest = (...parts: ReadonlyArray<string | Uint8Array>): Buffer => {
  const hash = createHash("sha256")
  for (const part of parts) hash.update(part)
  return hash.digest()
}

/** The cache directory for this environment, or undefined when caching is off or has no home. */
export const cacheDirectory = (
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  home: string = homedir()
): string | undefined => {
  const disabled = env.NODE_DISABLE_COMPILE_CACHE
  if (disabled !== undefined && disabled !== "" && disabled !== "0") return undefined
  const xdg = env.XDG_CACHE_HOME
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, "termpilot")
  if (home === "" || !isAbsolute(home)) return undefined
  return platform === "darwin"
    ? join(home, "Library", "Caches", "termpilot")
    : join(home, ".cache", "termpilot")
}

/**
 * The cache file for this exact source under this Node: its version, architecture and V8 flags
 * (`runtime`, e.g. from NODE_OPTIONS: V8 rejects a cache made under other flags, so each set of
 * flags keeps its own instead of rewriting one back and forth).
 */
export const cacheFile = (dir: string, runtime: ReadonlyArray<string>, source: string): string =>
  join(
    dir,
    `${digest(...runtime.flatMap((part) => [part, "\0"]), source)
      .toString("hex")
      .slice(0, 40)}${SUFFIX}`
  )

/** Whether only this user can change what `stats` describes (owned by `uid`, no group/other write). */
export const privateTo = (stats: Stats, uid: number): boolean =>
  stats.uid === uid && (stats.mode & 0o022) === 0

const currentUid = (): number | undefined => process.getuid?.()

/** Creates the directory (0700) if needed; true only when it is a real directory private to us. */
export const ensurePrivateDirectory = (dir: string, uid: number | undefined = currentUid()): boolean => {
  if (uid === undefined) return false
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const stats = lstatSync(dir)
    return stats.isDirectory() && privateTo(stats, uid)
  } catch {
    return false
  }
}

/** A cache file's bytes: the digest of the data, then the data. */
export const encodeCache = (data: Uint8Array): Buffer => Buffer.concat([digest(data), data])

/** The data of a cache file, or undefined when it is damaged (short, or its digest does not match). */
export const decodeCache = (bytes: Buffer): Buffer | undefined => {
  if (bytes.length <= DIGEST_BYTES) return undefined
  const data = bytes.subarray(DIGEST_BYTES)
  return digest(data).equals(bytes.subarray(0, DIGEST_BYTES)) ? data : undefined
}

/** The cached data in `file`, if it is a regular file private to us and intact. */
export const readCache = (file: string, uid: number | undefined = currentUid()): Buffer | undefined => {
  if (uid === undefined) return undefined
  try {
    const stats = lstatSync(file)
    if (!stats.isFile() || !privateTo(stats, uid)) return undefined
    return decodeCache(readFileSync(file))
  } catch {
    return undefined
  }
}

/** Writes `data` to `file` atomically (0600), then deletes all but the newest KEPT_CACHES caches. */
export const writeCache = (file: string, data: Uint8Array): void => {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(temporary, encodeCache(data), { mode: 0o600, flag: "wx" })
    renameSync(temporary, file)
  } catch {
    try {
      unlinkSync(temporary)
    } catch {}
    return
  }
  pruneCaches(dirname(file))
}

/** Deletes the caches in `dir` beyond the newest KEPT_CACHES. */
export const pruneCaches = (dir: string): void => {
  try {
    const caches = readdirSync(dir)
      .filter((name) => name.endsWith(SUFFIX))
      .map((name) => ({ path: join(dir, name), mtime: lstatSync(join(dir, name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime)
    for (const stale of caches.slice(KEPT_CACHES)) unlinkSync(stale.path)
  } catch {}
}
