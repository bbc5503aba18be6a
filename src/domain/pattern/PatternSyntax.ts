/**
 * PatternSyntax — the pattern language of wait_for_output, parsed into a small tree, pure: a
 * literal substring, or a regular-expression subset that a Thompson automaton can run in time
 * linear in the text (no backreferences, no lookaround, no word boundaries). The subset: literal
 * characters, `.`, classes `[a-z0-9_]` / `[^…]`, the escapes `\d \w \s \D \W \S \t` and an escaped
 * punctuation character, groups `( )` and `(?: )`, `|`, `* + ?` (a trailing `?` for laziness is
 * accepted and means nothing for a yes/no match), counts `{n}` `{n,}` `{n,m}` up to 100, and the
 * line anchors `^ $`. Anything else is refused with a sentence naming it.
 */

/** A set of code points: sorted, disjoint, inclusive [low, high] ranges. */
export type CharSet = ReadonlyArray<readonly [number, number]>

export type PatternNode =
  | { readonly _tag: "Chars"; readonly set: CharSet }
  | { readonly _tag: "Sequence"; readonly items: ReadonlyArray<PatternNode> }
  | { readonly _tag: "Alternation"; readonly options: ReadonlyArray<PatternNode> }
  | { readonly _tag: "Repeat"; readonly item: PatternNode; readonly min: number; readonly max: number | null }
  | { readonly _tag: "LineStart" }
  | { readonly _tag: "LineEnd" }

/** The largest count `{n,m}` may give. */
export const MAX_REPEAT = 100
/** How deep groups may nest. */
const MAX_DEPTH = 32

const MAX_CODE_POINT = 0x10ffff

/** Sort and merge ranges. */
export const normalizeSet = (ranges: ReadonlyArray<readonly [number, number]>): CharSet => {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0])
  const out: Array<[number, number]> = []
  for (const [low, high] of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && low <= last[1] + 1) last[1] = Math.max(last[1], high)
    else out.push([low, high])
  }
  return out
}

const complement = (set: CharSet): CharSet => {
  const out: Array<[number, number]> = []
  let next = 0
  for (const [low, high] of set) {
    if (low > next) out.push([next, low - 1])
    next = high + 1
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT])
  return out
}

const DIGIT: CharSet = [[0x30, 0x39]]
const WORD: CharSet = normalizeSet([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a]
])
const SPACE: CharSet = normalizeSet([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x2000, 0x200a],
  [0x3000, 0x3000]
])
const ANY: CharSet = [[0, MAX_CODE_POINT]]

const single = (code: number): CharSet => [[code, code]]

/** A refused pattern: why, for the `invalid_request` message. */
export class PatternError {
  constructor(readonly reason: string) {}
}

/** The tree of `source` read as a literal substring. */
export const literalPattern = (source: string): PatternNode => ({
  _tag: "Sequence",
  items: Array.from(source, (ch) => ({ _tag: "Chars", set: single(ch.codePointAt(0)!) }) as const)
})

/** The tree of `source` in the regex subset, or why it is refused. */
export const parsePattern = (source: string): PatternNode | PatternError => {
  const chars = Array.from(source)
  let at = 0
  let depth = 0
  const peek = () => chars[at]
  const refuse = (what: string) => {
    throw new PatternError(`${what} (at character ${at + 1})`)
  }

  const escaped = (inClass: boolean): CharSet => {
    const ch = chars[at++]
    if (ch === undefined) return refuse("a pattern cannot end with a lone backslash")
    switch (ch) {
      case "d":
        return DIGIT
      case "D":
        return complement(DIGIT)
      case "w":
        return WORD
      case "W":
        return complement(WORD)
      case "s":
        return SPACE
      case "S":
        return complement(SPACE)
      case "t":
        return single(0x09)
    }
    if (/^[A-Za-z0-9]$/.test(ch)) {
      return refuse(
        `\\${ch} is not supported (only \\d \\w \\s \\D \\W \\S \\t and escaped punctuation${inClass ? "" : "; no backreferences or \\b"})`
      )
    }
    return single(ch.codePointAt(0)!)
  }

  const charClass = (): CharSet => {
    const negate = peek() === "^"
    if (negate) at++
    const ranges: Array<readonly [number, number]> = []
    let first = true
    for (;;) {
      const ch = chars[at]
      if (ch === undefined) return refuse("an unclosed [")
      if (ch === "]" && !first) break
      first = false
      at++
      const low: CharSet = ch === "\\" ? escaped(true) : single(ch.codePointAt(0)!)
      const isSingle = low.length === 1 && low[0]![0] === low[0]![1]
      if (isSingle && peek() === "-" && chars[at + 1] !== undefined && chars[at + 1] !== "]") {
        at++
        const hi = chars[at++]!
        const high: CharSet = hi === "\\" ? escaped(true) : single(hi.codePointAt(0)!)
        if (high.length !== 1 || high[0]![0] !== high[0]![1])
          return refuse("a range must end in one character")
        if (high[0]![0] < low[0]![0]) return refuse("a range must go up, as [a-z] does")
        ranges.push([low[0]![0], high[0]![0]])
      } else {
        ranges.push(...low)
      }
    }
    at++
    const set = normalizeSet(ranges)
    return negate ? complement(set) : set
  }

  const count = (): { min: number; max: number | null } | null => {
    const rest = chars.slice(at).join("")
    const m = /^\{(\d{1,3})(,(\d{0,3}))?\}/.exec(rest)
    if (m === null) return null
    const min = Number(m[1])
    const max = m[2] === undefined ? min : m[3] === "" ? null : Number(m[3])
    if (min > MAX_REPEAT || (max !== null && max > MAX_REPEAT))
      return refuse(`a count may be at most ${MAX_REPEAT}`)
    if (max !== null && max < min) return refuse("a count {n,m} needs n ≤ m")
    at += Array.from(m[0]).length
    return { min, max }
  }

  const atom = (): PatternNode => {
    const ch = chars[at++]!
    switch (ch) {
      case ".":
        return { _tag: "Chars", set: ANY }
      case "^":
        return { _tag: "LineStart" }
      case "$":
        return { _tag: "LineEnd" }
      case "[":
        return { _tag: "Chars", set: charClass() }
      case "\\":
        return { _tag: "Chars", set: escaped(false) }
      case "(": {
        if (peek() === "?") {
          if (chars[at + 1] !== ":")
            return refuse("only (?: ) groups are supported (no lookaround or named groups)")
          at += 2
        }
        if (++depth > MAX_DEPTH) return refuse(`groups may nest at most ${MAX_DEPTH} deep`)
        const inner = alternation()
        if (chars[at] !== ")") return refuse("an unclosed (")
        at++
        depth--
        return inner
      }
      case ")":
        return refuse("an unmatched )")
      case "*":
      case "+":
      case "?":
        return refuse(`${ch} has nothing to repeat`)
      case "{":
        if (count() !== null) return refuse("a count has nothing to repeat")
        return { _tag: "Chars", set: single(0x7b) }
      default:
        return { _tag: "Chars", set: single(ch.codePointAt(0)!) }
    }
  }

  const repeated = (): PatternNode => {
    let item = atom()
    for (;;) {
      const ch = peek()
      let bounds: { min: number; max: number | null } | null = null
      if (ch === "*") bounds = { min: 0, max: null }
      else if (ch === "+") bounds = { min: 1, max: null }
      else if (ch === "?") bounds = { min: 0, max: 1 }
      if (bounds !== null) at++
      else if (ch === "{") bounds = count()
      if (bounds === null) return item
      if (item._tag === "LineStart" || item._tag === "LineEnd") return refuse("an anchor cannot be repeated")
      if (peek() === "?") at++
      if (peek() === "+") return refuse("possessive quantifiers are not supported")
      item = { _tag: "Repeat", item, ...bounds }
    }
  }

  const sequence = (): PatternNode => {
    const items: Array<PatternNode> = []
    while (at < chars.length && peek() !== "|" && peek() !== ")") items.push(repeated())
    return items.length === 1 ? items[0]! : { _tag: "Sequence", items }
  }

  function alternation(): PatternNode {
    const options = [sequence()]
    while (peek() === "|") {
      at++
      options.push(sequence())
    }
    return options.length === 1 ? options[0]! : { _tag: "Alternation", options }
  }

  try {
    const tree = alternation()
    if (at < chars.length) return refuse("an unmatched )")
    return tree
  } catch (error) {
    if (error instanceof PatternError) return error
    throw error
  }
}
