#!/usr/bin/env node
/**
 * bundle — builds the published `termpilot` bin: the whole program (src/cli/bin.ts and every
 * runtime dependency) as one CommonJS module function, dist/termpilot.main.cjs, with its source
 * map, plus dist/termpilot.js, the bin package.json names: src/launcher/ (heap policy, V8 code
 * cache), which compiles and runs the bundle. Source-mapped stack traces are opt-in
 * (`NODE_OPTIONS=--enable-source-maps`): reading the map costs ~200 ms and ~70 MB at start.
 * Also writes dist/THIRD-PARTY-LICENSES.txt: the license of every package inside the bundle.
 * Runs after `tsc` in `npm run build`; installing the package needs no dependencies.
 * `--out <dir>` builds into <dir>/dist instead, with a copy of package.json in <dir> (the bin reads
 * its version there): a second build of the same tree for an A/B (BENCH_BIN, SOAK_BIN), leaving
 * dist/ alone.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const outAt = process.argv.indexOf("--out")
const out = outAt >= 0 && process.argv[outAt + 1] !== undefined ? resolve(process.argv[outAt + 1]) : root
const dist = join(out, "dist")
if (out !== root) {
  mkdirSync(dist, { recursive: true })
  copyFileSync(join(root, "package.json"), join(out, "package.json"))
}

const result = await build({
  absWorkingDir: root,
  entryPoints: ["src/cli/bin.ts"],
  outfile: join(dist, "termpilot.main.cjs"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node22",
  // ws loads these optional native helpers when present and does without them otherwise.
  external: ["bufferutil", "utf-8-validate"],
  // The file is one function expression, CommonJS's module wrapper written out, so that the
  // launcher compiles exactly the file's text with its code cache (no copy of 3 MB to wrap it).
  banner: {
    js: '(function (exports, require, module, __filename, __dirname) {"use strict";\nconst __termpilotUrl = require("node:url").pathToFileURL(__filename).href;'
  },
  footer: { js: "})" },
  // A CommonJS module has no import.meta; PackageRoot finds the package from the bundle's own URL.
  define: { "import.meta.url": "__termpilotUrl" },
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: "linked",
  sourcesContent: false,
  legalComments: "none",
  metafile: true,
  logLevel: "warning"
})

// V8 keeps a source of Latin-1 characters at one byte each, any other character makes it two: one
// "•" in a regex once cost 3 MB of RSS. esbuild escapes strings; regex literals are on us.
const bundled = readFileSync(join(dist, "termpilot.main.cjs"), "latin1")
const wide = /[^\x00-\x7f]/.exec(bundled)
if (wide !== null)
  throw new Error(
    `dist/termpilot.main.cjs has a non-ASCII byte at ${wide.index} (${JSON.stringify(bundled.slice(wide.index - 40, wide.index + 10))}): write it as an escape in the source`
  )

// The bin itself: the launcher and its code cache, Node's built-in modules only.
await build({
  absWorkingDir: root,
  entryPoints: ["src/launcher/termpilot.ts"],
  outfile: join(dist, "termpilot.js"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  banner: {
    js: "#!/usr/bin/env node\n// termpilot launcher, built from src/launcher/ by scripts/bundle.mjs."
  },
  logLevel: "warning"
})
chmodSync(join(dist, "termpilot.js"), 0o755)

/** The directory of each package whose files went into the bundle. */
const packagesIn = (inputs) => {
  const dirs = new Set()
  for (const input of Object.keys(inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)
    if (match !== null) dirs.add(match[1])
  }
  return [...dirs].sort()
}

const licenseText = (dir) => {
  const file = readdirSync(join(root, dir)).find((name) => /^(licen[cs]e|copying)(\..*)?$/i.test(name))
  return file === undefined ? undefined : readFileSync(join(root, dir, file), "utf8").trim()
}

const notices = []
for (const dir of packagesIn(result.metafile.inputs)) {
  const manifestPath = join(root, dir, "package.json")
  if (!existsSync(manifestPath)) continue
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"))
  const text = licenseText(dir) ?? `License: ${manifest.license ?? "see the package"}`
  notices.push(`${manifest.name}@${manifest.version} (${manifest.license ?? "unknown"})\n\n${text}\n`)
}
/**
 * Packages another package's prebuilt files carry inside them (the MCP SDK's v2 dist vendors ajv
 * and its helpers): its bundler leaves a `//#region …/node_modules/<name>/…` line before each.
 * Their license texts are not in node_modules, so the notice names the package and its license.
 */
const VENDORED_LICENSES = {
  ajv: "MIT",
  "ajv-formats": "MIT",
  "fast-deep-equal": "MIT",
  "fast-uri": "BSD-3-Clause",
  "json-schema-traverse": "MIT",
  "@cfworker/json-schema": "MIT",
  "content-type": "MIT"
}
const vendoredIn = (inputs) => {
  const found = new Map()
  for (const input of Object.keys(inputs)) {
    const host = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\/dist\//.exec(input)
    if (host === null) continue
    const text = readFileSync(join(root, input), "utf8")
    for (const match of text.matchAll(/^\/\/#region \S*node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) {
      const hostName = JSON.parse(readFileSync(join(root, host[1], "package.json"), "utf8")).name
      if (match[1] !== hostName) found.set(match[1], hostName)
    }
  }
  return [...found].sort(([a], [b]) => (a < b ? -1 : 1))
}
for (const [name, host] of vendoredIn(result.metafile.inputs)) {
  const license = VENDORED_LICENSES[name]
  if (license === undefined)
    throw new Error(`${host} vendors ${name}: add its license to VENDORED_LICENSES in scripts/bundle.mjs`)
  notices.push(
    `${name} (${license}), vendored inside ${host}\n\nLicense: ${license}; the text is in the package's own repository (https://www.npmjs.com/package/${name}).\n`
  )
}
writeFileSync(
  join(dist, "THIRD-PARTY-LICENSES.txt"),
  `dist/termpilot.main.cjs bundles these packages:\n\n${notices.join(`\n${"-".repeat(78)}\n\n`)}`
)
