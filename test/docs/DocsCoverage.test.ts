/**
 * The docs name everything the product has, so a new tool, config key or environment variable
 * cannot ship undocumented (and a removed one cannot stay documented):
 *
 * - every tool the server publishes (src/tools/Registry.ts) is a row of the README's Tools table
 *   and a section of specs/tools.md, every "N tools" in the docs says the real number, and every
 *   paragraph about read-only mode that names a writing tool names all of them;
 * - every key the config file accepts (the Effect Schema in src/domain/ConfigFile.ts, walked on
 *   its encoded side) is in the config-key table of specs/security.md ("Configuration");
 * - every `TERMPILOT_…` variable read by a file under src/ is a row of the README's
 *   "Environment variables" table.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import { ConfigFileSchema } from "../../src/domain/ConfigFile.js"
import { toolRegistry } from "../../src/tools/Registry.js"

const root = new URL("../../", import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), "utf8")

const readme = read("README.md")
const toolsMd = read("specs/tools.md")
const securityMd = read("specs/security.md")
const errorsMd = read("specs/errors.md")

/** The text of the section under `heading` (a whole line), up to the next heading of its level or higher. */
const section = (text: string, heading: string): string => {
  const lines = text.split("\n")
  const start = lines.indexOf(heading)
  if (start < 0) throw new Error(`no heading ${JSON.stringify(heading)}`)
  const level = heading.indexOf(" ")
  const end = lines.findIndex(
    (line, i) =>
      i > start && /^#+ /.test(line) && line.indexOf(" ") <= level && !line.startsWith("#".repeat(level + 1))
  )
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n")
}

/** The backticked names in the first cell of each row of the markdown tables in `text`. */
const firstCells = (text: string): ReadonlyArray<string> =>
  text
    .split("\n")
    .filter((line) => line.startsWith("| ") && !/^\|\s*-/.test(line))
    .flatMap((line) => [...(line.split("|")[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ""))

/** Paragraphs, list items, table rows and command-list lines: the units a sentence about the tools lives in. */
const blocks = (text: string): ReadonlyArray<string> =>
  text
    .split(/\n\s*\n|\n(?=\s*(?:[-|]|\d+\.) |termpilot )/)
    .map((block) => block.replace(/\s+/g, " ").trim())
    .filter((block) => block !== "")

// ---------------------------------------------------------------------------------------------
// Tools

const tools = toolRegistry()
const names = tools.map((tool) => tool.name)
const writing = tools.filter((tool) => !tool.readOnly).map((tool) => tool.name)

const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
const NUMBER_WORD = new RegExp(`\\b(${NUMBER_WORDS.join("|")}|\\d+) (?:MCP )?tools\\b`, "gi")

const docs: ReadonlyArray<readonly [string, string]> = [
  ["README.md", readme],
  ["specs/tools.md", toolsMd],
  ["specs/security.md", securityMd],
  ["specs/errors.md", errorsMd],
  ...readdirSync(new URL("docs/", root))
    .filter((name) => name.endsWith(".md"))
    .map((name) => [`docs/${name}`, read(`docs/${name}`)] as const)
]

describe("every tool the server publishes is documented", () => {
  it("the registry is what the docs are checked against (10 tools, 3 of them writing)", () => {
    expect(names.length).toBeGreaterThanOrEqual(10)
    expect(writing).toEqual(expect.arrayContaining(["run_command", "interrupt_command", "send_keys"]))
  })

  it("README.md: one row of the Tools table per tool, and no other", () => {
    const rows = firstCells(section(readme, "## Tools").split("\n**The normal flow**")[0] ?? "")
    expect(rows).toEqual(names)
  })

  it("specs/tools.md: a section per tool, and the tools/list order sentence names them all", () => {
    for (const name of names) expect(toolsMd, name).toContain(`## \`${name}\``)
    const sentence = /The (\w+) tools, in `tools\/list` order: ([^.]+)\./.exec(toolsMd.replace(/\s+/g, " "))
    expect(sentence, "the tools/list order sentence").not.toBeNull()
    expect([...(sentence?.[2] ?? "").matchAll(/`(\w+)`/g)].map((m) => m[1])).toEqual(names)
  })

  it('every "N tools" in the docs is the real number', () => {
    const want = NUMBER_WORDS[names.length] ?? String(names.length)
    for (const [path, text] of docs) {
      for (const match of text.replace(/\s+/g, " ").matchAll(NUMBER_WORD)) {
        const said = (match[1] ?? "").toLowerCase()
        expect([want, String(names.length)], `${path}: "${match[0]}"`).toContain(said)
      }
    }
  })

  it("whatever says what read-only mode hides names every writing tool", () => {
    const cli = read("src/cli/Cli.ts")
    const help = /"Read-only mode:[^)]*\)/.exec(cli)?.[0] ?? ""
    expect(help, "the --read-only help in src/cli/Cli.ts").not.toBe("")
    const sources: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ...docs.map(([path, text]) => [path, blocks(text)] as const),
      ["src/cli/Cli.ts --read-only help", [help]]
    ]
    let checked = 0
    for (const [path, units] of sources) {
      for (const unit of units) {
        if (!/read-only|readOnly|READ_ONLY/.test(unit)) continue
        if (
          !/not offered|without|removes|lists? (?:neither|none|not)|not list|hides|not available/.test(unit)
        )
          continue
        if (!writing.some((name) => unit.includes(name))) continue
        checked += 1
        for (const name of writing) expect(unit, `${path}: names ${name}`).toContain(name)
      }
    }
    // README (the command list, the env table, Security), tools.md, security.md, errors.md, the help.
    expect(checked).toBeGreaterThanOrEqual(6)
  })
})

// ---------------------------------------------------------------------------------------------
// Config file keys

/** Every dotted key path the config file accepts, from the Schema's encoded side (what the file holds). */
const keyPaths = (ast: SchemaAST.AST, prefix = ""): ReadonlyArray<{ path: string; leaf: boolean }> => {
  // Effect 4 keeps refinements as checks on the node and transformations as its encoding chain, so
  // the encoded side (SchemaAST.toEncoded) has no Refinement or Transformation nodes left to unwrap.
  switch (ast._tag) {
    case "Objects":
      return ast.propertySignatures.flatMap((property) => {
        const path = prefix === "" ? String(property.name) : `${prefix}.${String(property.name)}`
        const inner = keyPaths(property.type, path)
        return [{ path, leaf: inner.length === 0 }, ...inner]
      })
    case "Union":
      return ast.types.flatMap((type) => keyPaths(type, prefix))
    case "Suspend":
      return keyPaths(SchemaAST.toEncoded(ast.thunk()), prefix)
    default:
      // Arrays of plain values, literals, strings, numbers, booleans: no keys inside.
      return []
  }
}

const configPaths = keyPaths(SchemaAST.toEncoded(ConfigFileSchema.ast))
const configSection = section(securityMd, "## Configuration")
const configTable = firstCells(configSection)

describe("every key the config file accepts is in the config-key table (specs/security.md)", () => {
  it("the schema walk finds the keys (also $schema, backends, tmux.sockets)", () => {
    const paths = configPaths.map((p) => p.path)
    for (const known of [
      "$schema",
      "readOnly",
      "backends",
      "tmux.sockets",
      "approval.policy",
      "policy.visible"
    ])
      expect(paths).toContain(known)
  })

  it("each key is a row, or lies under a row whose rule-set prose names the rest of its path", () => {
    for (const { path, leaf } of configPaths) {
      if (!leaf) continue
      if (configTable.includes(path)) continue
      const row = configTable.find((key) => path.startsWith(`${key}.`))
      expect(row, `config key ${path}: no row of its own or of a key above it`).toBeDefined()
      for (const segment of path.slice((row ?? "").length + 1).split("."))
        expect(configSection, `config key ${path}: \`${segment}\` is not described`).toContain(
          `\`${segment}\``
        )
    }
  })

  it("each row is a key the file accepts (no stale rows)", () => {
    const paths = new Set(configPaths.map((p) => p.path))
    for (const key of configTable) expect(paths, `row ${key}`).toContain(key)
  })

  it("README's Configuration section names every top-level key and links the table", () => {
    const readmeConfig = section(readme, "## Configuration")
    expect(readmeConfig).toContain("specs/security.md#configuration")
    for (const { path } of configPaths.filter((p) => !p.path.includes(".")))
      expect(readmeConfig, `top-level key ${path}`).toContain(`\`${path}`)
  })
})

// ---------------------------------------------------------------------------------------------
// Environment variables

/**
 * `TERMPILOT_…` names under src/ that are deliberately not in the README's table, each with the
 * reason. Only for internal names (never one a person sets); the test fails when an entry is no
 * longer in the source, so the list cannot go stale. Test-only variables (TERMPILOT_SOAK,
 * TERMPILOT_TEST_*, TERMPILOT_LIVE_ITERM2) live under test/ and are not read by src/ at all.
 */
const INTERNAL: Readonly<Record<string, string>> = {}

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(path) : /\.(?:[cm]?[jt]s)$/.test(entry.name) ? [path] : []
  })

const sources = sourceFiles(new URL("src", root).pathname).map((path) => ({
  path,
  text: readFileSync(path, "utf8")
}))

const NAME = "TERMPILOT_[A-Z0-9_]+"
/** How src/ reads a variable: `process.env.X`, `env.X`, `env["X"]`, or a call with the name first (`Config.string("X")`, `nonBlank("X")`, `positiveMs("X", …)`). */
const READS = [
  new RegExp(`\\benv\\??\\.(${NAME})\\b`, "g"),
  new RegExp(`\\benv\\[["'\`](${NAME})["'\`]\\]`, "g"),
  new RegExp(`\\w\\(\\s*["'\`](${NAME})["'\`]`, "g")
]
const read_ = new Set(
  sources.flatMap(({ text }) => READS.flatMap((re) => [...text.matchAll(re)].map((m) => m[1] ?? "")))
)
/** Every such name anywhere under src/ (a read through some other helper is caught here). */
const mentioned = new Set(
  sources.flatMap(({ text }) =>
    [...text.matchAll(new RegExp(`(?<![A-Za-z0-9_])${NAME}`, "g"))].map((m) => m[0])
  )
)

const envSection = section(readme, "### Environment variables")
const envTable = firstCells(envSection)

describe("every TERMPILOT_ variable src/ reads is in the README's environment table", () => {
  it("the scan finds the reads (the regexes still match how src/ reads the environment)", () => {
    for (const known of [
      "TERMPILOT_CONFIG",
      "TERMPILOT_READ_ONLY",
      "TERMPILOT_TMUX",
      "TERMPILOT_TMUX_TIMEOUT_MS"
    ])
      expect([...read_]).toContain(known)
  })

  it("each variable read is a row", () => {
    for (const name of [...read_].sort())
      expect(envTable, `${name} is read under src/ but not in README's environment table`).toContain(name)
  })

  it("each variable named anywhere under src/ is a row or an internal one with a reason", () => {
    for (const name of [...mentioned].sort()) {
      if (name in INTERNAL) continue
      expect(envTable, `${name} is named under src/ but not in README's environment table`).toContain(name)
    }
    for (const [name, why] of Object.entries(INTERNAL)) {
      expect(mentioned, `INTERNAL ${name} is no longer in src/`).toContain(name)
      expect(why.trim(), `INTERNAL ${name} needs a reason`).not.toBe("")
    }
  })

  it("each row is a variable src/ reads (no stale rows), and its config key is a real key", () => {
    const rows = section(readme, "### Environment variables")
      .split("\n")
      .filter((line) => line.startsWith("| `"))
    expect(rows.length).toBe(envTable.length)
    const paths = new Set(configPaths.map((p) => p.path))
    for (const row of rows) {
      const cells = row.split("|").map((cell) => cell.trim())
      const name = /`([^`]+)`/.exec(cells[1] ?? "")?.[1] ?? ""
      expect(read_, `row ${name}`).toContain(name)
      const key = /`([^`]+)`/.exec(cells[4] ?? "")?.[1]
      if (key !== undefined) expect(paths, `row ${name}: config key ${key}`).toContain(key)
    }
  })
})
