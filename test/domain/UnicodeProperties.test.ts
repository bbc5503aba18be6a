/**
 * The generated Unicode tables (scripts/unicode-tables.mjs → src/generated/unicode/) that
 * CommandValidation looks code points up in: each is well formed (ascending, disjoint, non-adjacent
 * ranges, as its binary search needs) and holds exactly the code points its `\p{…}` property
 * matches, over the whole range U+0000–U+10FFFF; the build's check passes on the committed file and
 * fails, naming it, when it was edited by hand.
 */
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import {
  DEFAULT_IGNORABLE,
  EMOJI_MODIFIER,
  EXTENDED_PICTOGRAPHIC,
  FORMAT,
  IDEOGRAPHIC,
  SPACE_SEPARATOR,
  UNICODE_VERSION
} from "../../src/generated/unicode/UnicodeProperties.js"

const TABLES: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
  ["Cf", FORMAT],
  ["Zs", SPACE_SEPARATOR],
  ["Default_Ignorable_Code_Point", DEFAULT_IGNORABLE],
  ["Extended_Pictographic", EXTENDED_PICTOGRAPHIC],
  ["Emoji_Modifier", EMOJI_MODIFIER],
  ["Ideographic", IDEOGRAPHIC]
]
const MAX_CP = 0x10ffff
const root = resolve(import.meta.dirname, "../..")
const script = join(root, "scripts/unicode-tables.mjs")
const OUT = "src/generated/unicode/UnicodeProperties.ts"
const scratch = mkdtempSync(join(tmpdir(), "tp-unicode-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** The table's code points, one flag per code point (no search: an oracle independent of it). */
const members = (ranges: ReadonlyArray<number>): Uint8Array => {
  const flags = new Uint8Array(MAX_CP + 1)
  for (let i = 0; i < ranges.length; i += 2) flags.fill(1, ranges[i]!, ranges[i + 1]! + 1)
  return flags
}

const run = (...args: ReadonlyArray<string>) => {
  const r = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: "utf8", timeout: 60_000 })
  return { status: r.status, stderr: r.stderr }
}

describe("generated Unicode property tables", () => {
  it.each(TABLES)("\\p{%s}: ascending, disjoint, non-adjacent ranges within U+0000–U+10FFFF", (_, ranges) => {
    expect(ranges.length % 2).toBe(0)
    expect(ranges.length).toBeGreaterThan(0)
    for (let i = 0; i < ranges.length; i += 2) {
      expect(ranges[i]!).toBeLessThanOrEqual(ranges[i + 1]!)
      if (i > 0) expect(ranges[i]!).toBeGreaterThan(ranges[i - 1]! + 1)
    }
    expect(ranges[0]!).toBeGreaterThanOrEqual(0)
    expect(ranges[ranges.length - 1]!).toBeLessThanOrEqual(MAX_CP)
  })

  // The tables are of one Unicode version; on a Node of another, `\p{…}` may differ at code points
  // that version assigned, so only code points this Node's Unicode has assigned are compared there.
  const sameVersion = process.versions.unicode === UNICODE_VERSION
  const assigned = /^\P{Cn}$/u

  it.each(TABLES)(
    "\\p{%s}: exactly the code points the regex matches, U+0000–U+10FFFF",
    (property, ranges) => {
      const pattern = new RegExp(`^\\p{${property}}$`, "u")
      const flags = members(ranges)
      const wrong: Array<string> = []
      for (let cp = 0; cp <= MAX_CP; cp++) {
        const char = String.fromCodePoint(cp)
        if (!sameVersion && !assigned.test(char)) continue
        if ((flags[cp] === 1) !== pattern.test(char)) wrong.push(cp.toString(16))
      }
      expect(wrong.slice(0, 20)).toEqual([])
    }
  )

  it("the committed file is what the generator makes (the build's check)", () => {
    expect(run("--check")).toEqual({
      status: 0,
      stderr: sameVersion
        ? ""
        : `unicode-tables: ${OUT} is of Unicode ${UNICODE_VERSION}, this Node has Unicode ${process.versions.unicode}: not checked\n`
    })
  })

  it.skipIf(!sameVersion)("the check fails naming a hand-edited file, and regenerating restores it", () => {
    const dir = join(scratch, "edited")
    mkdirSync(join(dir, OUT, ".."), { recursive: true })
    copyFileSync(join(root, OUT), join(dir, OUT))
    const committed = readFileSync(join(dir, OUT), "utf8")
    writeFileSync(join(dir, OUT), committed.replace("0x1f3fb, 0x1f3ff", "0x1f3fb, 0x1f3fe"))
    const r = run("--check", "--root", dir)
    expect(r.status).toBe(1)
    expect(r.stderr).toContain("UnicodeProperties.ts")
    expect(run("--root", dir).status).toBe(0)
    expect(readFileSync(join(dir, OUT), "utf8")).toBe(committed)
  })
})
