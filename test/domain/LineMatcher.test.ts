/**
 * wait_for_output's pattern matcher: the regex subset agrees with JavaScript's own RegExp (the
 * oracle) on patterns RegExp runs safely, literal mode finds substrings only, refused constructs
 * are refused with a reason, and patterns that make a backtracking engine take exponential time
 * give the right answer here (the oracle there is the known answer, not RegExp).
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { compileMatcher, type LineMatcher, MAX_NFA_STATES } from "../../src/domain/pattern/LineMatcher.js"
import { PatternError } from "../../src/domain/pattern/PatternSyntax.js"

const regex = (pattern: string, ignoreCase = false): LineMatcher => {
  const m = compileMatcher(pattern, { regex: true, ignoreCase })
  if (m instanceof PatternError) throw new Error(`refused ${pattern}: ${m.reason}`)
  return m
}

const literal = (pattern: string, ignoreCase = false): LineMatcher => {
  const m = compileMatcher(pattern, { regex: false, ignoreCase })
  if (m instanceof PatternError) throw new Error(`refused ${pattern}: ${m.reason}`)
  return m
}

describe("the regex subset agrees with RegExp", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["error", ["an error here", "no problem", "ERROR", ""]],
    ["^Listening on port \\d+$", ["Listening on port 8080", "Listening on port ", "x Listening on port 1"]],
    ["(foo|bar)baz", ["foobaz", "barbaz", "fobaz", "xxbarbazxx"]],
    ["colou?r", ["color", "colour", "colouur"]],
    ["a{2,3}b", ["ab", "aab", "aaab", "aaaab"]],
    ["a{2}", ["a", "aa"]],
    ["x{2,}y", ["xy", "xxy", "xxxxxxy"]],
    ["[^0-9 ]+!", ["123!", "abc!", " !"]],
    ["[a-c-]x", ["-x", "bx", "dx"]],
    ["\\[ok\\]", ["[ok]", "ok"]],
    ["^$", ["", " "]],
    ["done\\.$", ["all done.", "done!", "done. "]],
    ["\\w+@\\w+\\.com", ["mail ada@example.com now", "ada@.com"]],
    ["\\s\\S\\s", ["a b c", "ab"]],
    ["(?:ab)+c", ["ababc", "ac", "abxabc"]],
    ["a.*?z", ["a to z", "az", "za"]],
    ["héllo|日本", ["say héllo", "日本語", "hello"]],
    ["^(a|b)*$", ["abba", "abca", ""]],
    ["[\\d.]+%", ["progress 45.5%", "%"]]
  ]
  it.each(cases)("%s", (pattern, lines) => {
    const ours = regex(pattern)
    const theirs = new RegExp(pattern, "u")
    for (const line of lines)
      expect(ours.test(line), `${pattern} on ${JSON.stringify(line)}`).toBe(theirs.test(line))
  })

  it("random lines over a small alphabet agree for a fixed set of patterns", () => {
    const patterns = ["a(b|c)*d", "^b+a?$", "[ab]{2,4}c", "(a|ab)(c|bcd)", "d$", "^(ab|a)*b"]
    fc.assert(
      fc.property(
        fc.constantFrom(...patterns),
        fc.string({ unit: fc.constantFrom("a", "b", "c", "d", " ") }),
        (p, line) => regex(p).test(line) === new RegExp(p).test(line)
      ),
      { numRuns: 500 }
    )
  })

  it("ignore_case folds letters both ways", () => {
    expect(regex("error", true).test("Build ERROR: x")).toBe(true)
    expect(regex("[A-Z]+ok", true).test("abcOK")).toBe(true)
    expect(literal("Ready", true).test("server READY")).toBe(true)
    expect(literal("Ready").test("server READY")).toBe(false)
  })
})

describe("literal mode", () => {
  it("finds substrings and treats regex syntax as text", () => {
    expect(literal("(a+)+$").test("x (a+)+$ y")).toBe(true)
    expect(literal("(a+)+$").test("aaaa")).toBe(false)
    expect(literal("a.c").test("abc")).toBe(false)
    expect(literal("a.c").test("a.c")).toBe(true)
  })
})

describe("patterns that are catastrophic for a backtracking engine", () => {
  const longLine = `${"a".repeat(50_000)}b`
  it.each([
    ["(a+)+$", false],
    ["^(a|a)*$", false],
    ["(a|a)*$", true],
    ["(a*)*c", false],
    ["^(a|aa)+$", false],
    ["(a+)+b", true]
  ] as const)("%s on 50,000 a's then b is %s", (pattern, expected) => {
    expect(regex(pattern).test(longLine)).toBe(expected)
  })

  it("(x+x+)+y on a line of x's, and many DFA states, still answer correctly", () => {
    expect(regex("(x+x+)+y").test("x".repeat(20_000))).toBe(false)
    // (a|b)*a(a|b){12} needs thousands of DFA states: the bounded cache is dropped and rebuilt.
    const line = Array.from({ length: 40_000 }, (_, i) => ((i * 7919) % 3 === 0 ? "a" : "b")).join("")
    const p = "(a|b)*a(a|b){12}$"
    expect(regex(p).test(line)).toBe(new RegExp(p).test(line))
  })
})

describe("refused patterns", () => {
  it.each([
    ["(a)\\1", /\\1 is not supported/],
    ["\\bword", /\\b is not supported/],
    ["(?=x)", /lookaround/],
    ["(?<n>x)", /lookaround/],
    ["a{101}", /at most 100/],
    ["a{3,2}", /n ≤ m/],
    ["(ab", /unclosed \(/],
    ["ab)", /unmatched \)/],
    ["[ab", /unclosed \[/],
    ["*a", /nothing to repeat/],
    ["a++", /possessive/],
    ["[z-a]", /must go up/],
    ["x\\", /lone backslash/],
    ["^*", /anchor cannot be repeated/]
  ])("%s", (pattern, reason) => {
    const m = compileMatcher(pattern, { regex: true, ignoreCase: false })
    expect(m).toBeInstanceOf(PatternError)
    expect((m as PatternError).reason).toMatch(reason)
  })

  it(`a pattern that expands past ${MAX_NFA_STATES} states is refused`, () => {
    const m = compileMatcher("((ab){100}){100}", { regex: true, ignoreCase: false })
    expect(m).toBeInstanceOf(PatternError)
    expect((m as PatternError).reason).toMatch(/too complex/)
  })
})
