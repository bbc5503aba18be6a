/**
 * Invisible and look-alike characters in a command, over the whole code-point range: every format
 * character (Cf), line/paragraph separator, space other than U+0020, default-ignorable code point
 * and blank look-alike is refused wherever it stands, naming it; ordinary text (accents, CJK,
 * emoji, with their joiners and selectors where they shape an emoji) is accepted.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { validateCommand } from "../../src/domain/CommandValidation.js"

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`
const char = (cp: number) => String.fromCodePoint(cp)

/** The rule, stated on Unicode's own properties (the test's oracle). */
const SPEC =
  /^(?:\p{gc=Cf}|\p{gc=Zl}|\p{gc=Zp}|\p{gc=Zs}|\p{gc=Cc}|\p{gc=Cs}|\p{Default_Ignorable_Code_Point}|[\u115F\u1160\u3164\uFFA0\u2800])$/u
const refusedBySpec = (cp: number) => cp !== 0x20 && SPEC.test(char(cp))

const MAX_CP = 0x10ffff
const isSurrogate = (cp: number) => cp >= 0xd800 && cp <= 0xdfff

/** A code point the rule allows (any plane, assigned or not). */
const allowedCodePoint = fc
  .integer({ min: 0x20, max: MAX_CP })
  .filter((cp) => !isSurrogate(cp) && !refusedBySpec(cp))
/** A code point the rule refuses, drawn from the whole range (rare, so drawn from the list). */
const REFUSED: ReadonlyArray<number> = (() => {
  const all: Array<number> = []
  for (let cp = 0x21; cp <= MAX_CP; cp++) if (!isSurrogate(cp) && refusedBySpec(cp)) all.push(cp)
  return all
})()
/** The joiner and selectors that may shape a neighbouring emoji or ideograph (tested on their own). */
const contextual = (cp: number) =>
  cp === 0x200d || cp === 0xfe0e || cp === 0xfe0f || (cp >= 0xe0100 && cp <= 0xe01ef)
const refusedCodePoint = fc.constantFrom(...REFUSED.filter((cp) => !contextual(cp)))

const ordinaryText = fc
  .array(allowedCodePoint, { minLength: 1, maxLength: 40 })
  .map((cps) => `x${String.fromCodePoint(...cps)}`)

describe("invisible and look-alike characters", () => {
  it("every code point of the range, between two letters: refused exactly when the rule says so", () => {
    const wrong: Array<string> = []
    for (let cp = 0x21; cp <= MAX_CP; cp++) {
      if (isSurrogate(cp)) continue
      const refused = validateCommand(`ec${char(cp)}ho x`) !== undefined
      if (refused !== refusedBySpec(cp)) wrong.push(`${hex(cp)} refused=${refused}`)
    }
    expect(wrong).toEqual([])
  })

  it("the rule covers what the issue names", () => {
    const named = [
      0x200b, 0x200c, 0x200d, 0x2060, 0x00ad, 0xfeff, 0x202e, 0x2066, 0xe0041, 0xe0001, 0x2062, 0x2028,
      0x2029, 0x00a0, 0x2000, 0x2003, 0x2009, 0x200a, 0x202f, 0x205f, 0x3000, 0x1680, 0x115f, 0x1160, 0x3164,
      0xffa0, 0x2800
    ]
    for (const cp of named) expect(validateCommand(`ec${char(cp)}ho x`), hex(cp)).toBeDefined()
    expect(validateCommand("ec\u200bho x")).toMatch(
      /invisible or look-alike characters \(U\+200B at position 2/
    )
  })

  it("ordinary text is accepted (property)", () => {
    fc.assert(
      fc.property(ordinaryText, (text) => {
        expect(validateCommand(text)).toBeUndefined()
      }),
      { numRuns: 2_000 }
    )
  })

  it("a refused code point anywhere in ordinary text is refused, naming it and its position (property)", () => {
    fc.assert(
      fc.property(ordinaryText, refusedCodePoint, fc.nat(), (text, cp, at) => {
        const cps = Array.from(text)
        const position = 1 + (at % cps.length) // after the leading letter: never a blank command
        cps.splice(position, 0, char(cp))
        const message = validateCommand(cps.join(""))
        expect(message).toBeDefined()
        expect(message).toContain(`${hex(cp)} at position ${position}`)
      }),
      { numRuns: 5_000 }
    )
  })

  it("keeps accents, CJK, emoji and emoji sequences working", () => {
    for (const command of [
      "echo café naïve Ærøskøbing",
      "echo e\u0301", // combining acute accent
      "echo 日本語 한국어 中文",
      "echo 😀 🇫🇷 ❤️ 1️⃣ 👍🏽",
      "git commit -m '👨‍👩‍👧 family, 👩🏽‍💻 at work, 🏳️‍🌈 flag'",
      "echo 葛\u{E0100}" // an ideographic variation sequence
    ]) {
      expect(validateCommand(command), command).toBeUndefined()
    }
  })

  it("the zero-width joiner only between emoji; presentation selectors only after an emoji or keycap base", () => {
    for (const command of [
      "ec\u200dho", // between letters
      "echo 😀\u200dx", // emoji, then a letter
      "echo x\u200d😀",
      "echo 😀\u200d", // at the end
      "\u200d😀 x",
      "ec\ufe0fho", // a presentation selector after a letter
      "echo x\u{E0100}", // an ideographic selector after a letter
      "echo 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}" // tag characters
    ]) {
      expect(validateCommand(command), JSON.stringify(command)).toMatch(/invisible or look-alike/)
    }
  })
})
