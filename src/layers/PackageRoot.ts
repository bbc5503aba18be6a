/**
 * Where this installation of TermPilot lives and which version it is: the nearest enclosing
 * directory whose package.json is named "termpilot", found by walking up from this module. Works
 * from `src/` (tests) and from `dist/src/` (the built bin, installed globally or by npx).
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const PACKAGE_NAME = "termpilot"

const manifestAt = (dir: string): { readonly name?: unknown; readonly version?: unknown } | undefined => {
  const path = join(dir, "package.json")
  if (!existsSync(path)) return undefined
  try {
    return JSON.parse(readFileSync(path, "utf8")) as { name?: unknown; version?: unknown }
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
