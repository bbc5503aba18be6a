import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { boundHead, boundTail, codePointTail } from "../../src/domain/TextBounds.js"

const GRIN = "\u{1F600}"
const hasLoneSurrogate = (text: string) =>
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)

describe("boundTail", () => {
  it("returns everything, trailing padding trimmed, when within bounds", () => {
    expect(boundTail(["$ ls   ", "a  b", ""], { maxLines: 10, maxChars: 100 })).toEqual({
      text: "$ ls\na  b\n",
      lineCount: 3,
      truncated: false
    })
  })

  it("returns an empty text for no lines", () => {
    expect(boundTail([], { maxLines: 5, maxChars: 5 })).toEqual({ text: "", lineCount: 0, truncated: false })
  })

  it("keeps the newest maxLines lines", () => {
    expect(boundTail(["1", "2", "3", "4"], { maxLines: 2, maxChars: 100 })).toEqual({
      text: "3\n4",
      lineCount: 2,
      truncated: true
    })
  })

  it("counts the newlines between lines against maxChars", () => {
    // "bb\ncc" is 5 code points.
    expect(boundTail(["aa", "bb", "cc"], { maxLines: 10, maxChars: 5 })).toEqual({
      text: "bb\ncc",
      lineCount: 2,
      truncated: true
    })
    expect(boundTail(["aa", "bb", "cc"], { maxLines: 10, maxChars: 4 })).toEqual({
      text: "cc",
      lineCount: 1,
      truncated: true
    })
  })

  it("drops a whole older line rather than keeping part of it", () => {
    const bounded = boundTail(["a long older line", "new"], { maxLines: 10, maxChars: 8 })
    expect(bounded).toEqual({ text: "new", lineCount: 1, truncated: true })
  })

  it("keeps the tail of the newest line when it alone exceeds maxChars", () => {
    expect(boundTail(["old", "0123456789"], { maxLines: 10, maxChars: 4 })).toEqual({
      text: "6789",
      lineCount: 1,
      truncated: true
    })
  })

  it("counts code points and never splits a surrogate pair", () => {
    const line = `x${GRIN.repeat(5)}`
    const bounded = boundTail([line], { maxLines: 1, maxChars: 3 })
    expect(bounded.text).toBe(GRIN.repeat(3))
    expect(bounded.truncated).toBe(true)
    expect(boundTail([GRIN.repeat(4)], { maxLines: 1, maxChars: 4 })).toEqual({
      text: GRIN.repeat(4),
      lineCount: 1,
      truncated: false
    })
  })

  it("is exact at the boundaries: maxLines = line count and maxChars = length are not truncation", () => {
    expect(boundTail(["ab", "cd"], { maxLines: 2, maxChars: 5 }).truncated).toBe(false)
    expect(boundTail(["ab", "cd"], { maxLines: 2, maxChars: 4 }).truncated).toBe(true)
    expect(boundTail(["ab", "cd"], { maxLines: 1, maxChars: 5 }).truncated).toBe(true)
  })

  it("never exceeds either bound and the kept text is a suffix of the trimmed input", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: "grapheme", maxLength: 20 }).map((s) => s.replace(/\n/g, "")),
          { maxLength: 30 }
        ),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 200 }),
        (lines, maxLines, maxChars) => {
          const bounded = boundTail(lines, { maxLines, maxChars })
          const full = lines.map((l) => l.trimEnd()).join("\n")
          expect(Array.from(bounded.text).length).toBeLessThanOrEqual(maxChars)
          expect(bounded.lineCount).toBeLessThanOrEqual(maxLines)
          expect(full.endsWith(bounded.text)).toBe(true)
          expect(hasLoneSurrogate(bounded.text)).toBe(false)
          if (!bounded.truncated) expect(bounded.text).toBe(full)
        }
      )
    )
  })
})

describe("codePointTail", () => {
  it("takes code points from the end", () => {
    expect(codePointTail(`a${GRIN}b`, 2)).toBe(`${GRIN}b`)
    expect(codePointTail("abc", 10)).toBe("abc")
    expect(codePointTail("abc", 0)).toBe("")
  })
})

describe("boundHead", () => {
  it("keeps the oldest lines within the line bound", () => {
    expect(boundHead(["1", "2", "3", "4"], { maxLines: 2, maxChars: 100 })).toEqual({
      text: "1\n2",
      lineCount: 2,
      truncated: true
    })
    expect(boundHead(["1", "2"], { maxLines: 2, maxChars: 100 }).truncated).toBe(false)
  })

  it("stops at the character bound, cutting only a first line too long alone, from its head", () => {
    expect(boundHead(["abc", "def", "ghi"], { maxLines: 10, maxChars: 7 })).toEqual({
      text: "abc\ndef",
      lineCount: 2,
      truncated: true
    })
    expect(boundHead([`${GRIN}bcdef`, "x"], { maxLines: 10, maxChars: 2 }).text).toBe(`${GRIN}b`)
  })

  it("any lines and bounds: within both bounds, a prefix of the whole, whole when not truncated", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 20 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 80 }),
        (lines, maxLines, maxChars) => {
          const bounded = boundHead(lines, { maxLines, maxChars })
          const full = lines.map((l) => l.trimEnd()).join("\n")
          expect(Array.from(bounded.text).length).toBeLessThanOrEqual(maxChars)
          expect(bounded.lineCount).toBeLessThanOrEqual(maxLines)
          expect(full.startsWith(bounded.text)).toBe(true)
          if (!bounded.truncated) expect(bounded.text).toBe(full)
        }
      )
    )
  })
})
