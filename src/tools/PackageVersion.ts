/**
 * The running package's version, read from its package.json. Works from `src/` (tests, vite-node)
 * and from `dist/src/` (the built bin) by walking up from this module to termpilot's package.json.
 */
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const PACKAGE_NAME = "termpilot"

/** The version of the nearest enclosing `termpilot` package.json; throws if there is none. */
export const packageVersion = (from: string = import.meta.url): string => {
  let dir = dirname(fileURLToPath(from))
  for (;;) {
    try {
      const manifest: unknown = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
      if (
        typeof manifest === "object" &&
        manifest !== null &&
        "name" in manifest &&
        manifest.name === PACKAGE_NAME &&
        "version" in manifest &&
        typeof manifest.version === "string"
      ) {
        return manifest.version
      }
    } catch {
      // no readable package.json here: keep walking up
    }
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package.json above ${from}`)
    dir = parent
  }
}
