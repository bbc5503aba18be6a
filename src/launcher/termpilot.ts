/**
 * The published `termpilot` bin (dist/termpilot.js, built by scripts/bundle.mjs): sets TermPilot's
 * memory policy, then compiles and runs the one-file bundle dist/termpilot.main.cjs with its V8 code
 * cache (CodeCache.ts), and writes that cache one second into a start that had none.
 *
 * Memory, applied by TermPilot to itself so that no V8 flag is needed: the old generation grows
 * 10 % at a time instead of V8's default factor (up to 4×), and the young generation keeps its
 * initial size instead of doubling under load, so a long session stays near its warmed-up RSS; and
 * once the process is quiet after a burst, the burst's garbage is collected and its pages given
 * back (QuietCollect.ts).
 * With `NODE_OPTIONS=--enable-source-maps` the bundle is loaded through Node's module loader
 * instead (no cache), so stack traces point into the TypeScript sources.
 *
 * On a Node.js older than TermPilot supports (package.json's engines) it starts nothing: one line
 * on stderr saying what to install, exit code 1.
 */
import { readFileSync } from "node:fs"
import Module, { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import v8 from "node:v8"
import vm from "node:vm"
import { MINIMUM_NODE, nodeSupported } from "../domain/HealthCheck.js"
import { cacheDirectory, cacheFile, ensurePrivateDirectory, readCache, writeCache } from "./CodeCache.js"
import { collectWhenQuiet } from "./QuietCollect.js"

/** The bundle evaluates to this function: CommonJS's module wrapper, written out by the bundler. */
type Entry = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string
) => void

/** How long a start without a cache runs before it saves one (the functions it compiled by then are in it). */
const SAVE_AFTER_MS = 1_000

// Before anything else: TermPilot is built and tested for these Node versions only.
if (!nodeSupported(process.versions.node)) {
  process.stderr.write(
    `termpilot: Node.js ${MINIMUM_NODE} or newer is required, this is Node.js ${process.version} (${process.execPath}); install Node.js 24 LTS (or ${MINIMUM_NODE}+) from https://nodejs.org/en/download\n`
  )
  process.exit(1)
}

// The heap policy, applied by the product to itself (no flag on any command line), before the
// program loads; each flag kept on its A/B in docs/benchmarks.md ("Memory, step by step").
// The old generation grows 10 % at a time: without it the soak's RSS grew +14 % instead of +4.5 %
// (Effect 3), for ~12 % more CPU per call and no difference in latency.
v8.setFlagsFromString("--heap-growing-percent=10")
// The young generation stays at its initial 2 MB: V8 would double it under load, again and again,
// and keep it (103 MB resident in the soak on Node 24). Soak on Node 24: 229–230 MB at the end
// (FAIL) → 125–127 MB; idle RSS after 100 calls −10.5 MB; 9–13 % more server CPU per call under a
// steady load, no latency outside the spread between runs. (--max-semi-space-size would do nothing
// here: V8 reads it only at start; the growth factor it reads at each growth.)
v8.setFlagsFromString("--semi-space-growth-factor=1")
// The garbage of a burst goes back once the process is quiet, not 8 s or more later (QuietCollect.ts).
collectWhenQuiet()

/** Compiled by Node's module loader, which registers the bundle's source map. */
const compileWithSourceMaps = (file: string, source: string): Entry => {
  const loader = new Module(file)
  loader.filename = file
  ;(loader as unknown as { _compile: (code: string, filename: string) => void })._compile(
    `module.exports = ${source}`,
    file
  )
  return loader.exports as Entry
}

/** What a cache depends on besides the source: Node's version, the architecture, the V8 flags. */
const runtime = (): ReadonlyArray<string> => [
  process.version,
  process.arch,
  process.execArgv.join(" "),
  process.env.NODE_OPTIONS ?? ""
]

/** The cache file for `source` in a private cache directory, or undefined (off, or unusable). */
const cacheTarget = (source: string): string | undefined => {
  try {
    const dir = cacheDirectory(process.env, process.platform)
    return dir !== undefined && ensurePrivateDirectory(dir) ? cacheFile(dir, runtime(), source) : undefined
  } catch {
    return undefined
  }
}

/** Saves the code compiled so far; a failure only means the next start compiles again. */
const saveCache = (target: string, script: vm.Script): void => {
  try {
    writeCache(target, script.createCachedData())
  } catch {}
}

/** Compiled with the code cache when there is a usable one; schedules saving one when there is not. */
const compileWithCache = (file: string, source: string): Entry => {
  const target = cacheTarget(source)
  const cachedData = target === undefined ? undefined : readCache(target)
  const script = new vm.Script(
    source,
    cachedData === undefined ? { filename: file } : { filename: file, cachedData }
  )
  if (target !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    setTimeout(() => saveCache(target, script), SAVE_AFTER_MS).unref()
  }
  return script.runInThisContext() as Entry
}

const main = join(dirname(fileURLToPath(import.meta.url)), "termpilot.main.cjs")
const source = readFileSync(main, "utf8")
const entry = process.sourceMapsEnabled ? compileWithSourceMaps(main, source) : compileWithCache(main, source)
const exported = { exports: {} }
entry.call(exported.exports, exported.exports, createRequire(main), exported, main, dirname(main))
