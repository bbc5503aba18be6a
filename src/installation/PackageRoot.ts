/**
 * PackageRoot — where this installation of TermPilot lives, which version it is and which file its
 * `termpilot` bin runs: the nearest enclosing directory whose package.json is named "termpilot",
 * found by walking up from this module. Works from `src/` (tests), from `dist/src/` (the compiled modules)
 * and from the bundle `dist/termpilot.main.cjs` (the published bin, installed globally or by npx).
 * A leaf: Node's built-in modules only, so the command line, the tools (the server's version) and
 * the iTerm2 backend (its proto file, the version it announces) may all read it.
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const PACKAGE_NAME = "termpilot"

interface Manifest {
  readonly name?: unknown
  readonly version?: unknown
  readonly bin?: unknown
}

const manifestAt = (dir: string): Manifest | undefined => {
  const path = join(dir, "package.json")
  if (!existsSync(path)) return undefined
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Manifest
  } catch {
    return undefined
  }
}

/** The package root above `from` (a directory); throws if there is none (a broken install). */
export const findPackageRoot = (from: string = dirname(fileURLToPath(import.meta.url))): string => {
  let dir = from
  for (;;) {
    if (manifestAt(dir)?.name === PACKAGE_NAME) return dir
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package.json above ${from}`)
    dir = parent
  }
}

let version: string | undefined

/** The package version from package.json (read once). */
export const packageVersion = (): string => {
  if (version === undefined) {
    const found = manifestAt(findPackageRoot())?.version
    if (typeof found !== "string") throw new Error(`${PACKAGE_NAME}'s package.json has no version`)
    version = found
  }
  return version
}

/**
 * Absolute path of the file package.json's `bin.termpilot` names (the launcher of the bundle),
 * whichever module asks: what `node <path>` must be given to start this installation.
 */
export const binPath = (): string => {
  const root = findPackageRoot()
  const bin = manifestAt(root)?.bin
  const entry = typeof bin === "object" && bin !== null ? (bin as Record<string, unknown>)[PACKAGE_NAME] : bin
  if (typeof entry !== "string") throw new Error(`${PACKAGE_NAME}'s package.json names no bin`)
  return join(root, entry)
}
