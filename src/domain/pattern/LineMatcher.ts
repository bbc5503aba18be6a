/**
 * LineMatcher — whether a line of text contains a match of a wait_for_output pattern, in time
 * linear in the line, pure. The pattern's tree (PatternSyntax.ts) becomes a Thompson NFA of at
 * most MAX_NFA_STATES states, run as a lazily built DFA (each DFA state a set of NFA states, its
 * transitions cached per character class): every character costs one cached step, or at most one
 * pass over the NFA when the step is new, so no pattern can backtrack. The cache is bounded and
 * dropped when full (RE2's way), which keeps memory bounded and the time linear.
 */
import {
  type CharSet,
  literalPattern,
  normalizeSet,
  PatternError,
  type PatternNode,
  parsePattern
} from "./PatternSyntax.js"

/** The most NFA states a pattern may compile to (counts expand: `(ab){100}` is 200 of them). */
export const MAX_NFA_STATES = 2000
/** The most DFA states kept before the cache is dropped. */
const MAX_DFA_STATES = 1000

const CHARS = 0
const SPLIT = 1
const BOL = 2
const EOL = 3
const MATCH = 4

interface NfaState {
  readonly kind: number
  readonly set: CharSet
  out: number
  out2: number
}

interface DfaState {
  /** The NFA states it holds (chars, EOL and MATCH states only; splits and BOL are followed). */
  readonly states: ReadonlyArray<number>
  readonly matched: boolean
  readonly next: Map<number, DfaState>
}

export interface MatchOptions {
  /** The pattern is a regular expression of the subset (PatternSyntax.ts), not a literal substring. */
  readonly regex: boolean
  /** Letters match either case (the line and the pattern are lower-cased; class ranges fold A–Z). */
  readonly ignoreCase: boolean
}

export interface LineMatcher {
  /** Whether `line` (one line, no newline) contains a match. */
  readonly test: (line: string) => boolean
}

const inSet = (set: CharSet, code: number): boolean => {
  let low = 0
  let high = set.length - 1
  while (low <= high) {
    const mid = (low + high) >> 1
    const [a, b] = set[mid]!
    if (code < a) high = mid - 1
    else if (code > b) low = mid + 1
    else return true
  }
  return false
}

/** The set as a case-insensitive match over a lower-cased line sees it. */
const foldSet = (set: CharSet): CharSet => {
  const ranges: Array<readonly [number, number]> = [...set]
  for (const [low, high] of set) {
    const a = Math.max(low, 0x41)
    const b = Math.min(high, 0x5a)
    if (a <= b) ranges.push([a + 0x20, b + 0x20])
    if (low === high && low > 0x7f) {
      const lower = String.fromCodePoint(low).toLowerCase()
      const code = lower.codePointAt(0)!
      if (lower.length === String.fromCodePoint(code).length) ranges.push([code, code])
    }
  }
  return normalizeSet(ranges)
}

const compileNfa = (tree: PatternNode, ignoreCase: boolean): ReadonlyArray<NfaState> => {
  const states: Array<NfaState> = []
  const add = (kind: number, set: CharSet, out: number, out2 = -1): number => {
    if (states.length >= MAX_NFA_STATES) {
      throw new PatternError(
        `the pattern is too complex (more than ${MAX_NFA_STATES} states; lower its counts)`
      )
    }
    states.push({ kind, set, out, out2 })
    return states.length - 1
  }
  /** The state that matches `node` and then goes on to `next` (built back to front). */
  const build = (node: PatternNode, next: number): number => {
    switch (node._tag) {
      case "Chars":
        return add(CHARS, ignoreCase ? foldSet(node.set) : node.set, next)
      case "LineStart":
        return add(BOL, [], next)
      case "LineEnd":
        return add(EOL, [], next)
      case "Sequence":
        return node.items.reduceRight((after, item) => build(item, after), next)
      case "Alternation": {
        const starts = node.options.map((option) => build(option, next))
        return starts.slice(1).reduce((a, b) => add(SPLIT, [], a, b), starts[0]!)
      }
      case "Repeat": {
        let cur = next
        if (node.max === null) {
          const loop = add(SPLIT, [], -1, next)
          states[loop]!.out = build(node.item, loop)
          cur = loop
        } else {
          for (let i = node.min; i < node.max; i++) cur = add(SPLIT, [], build(node.item, cur), next)
        }
        for (let i = 0; i < node.min; i++) cur = build(node.item, cur)
        return cur
      }
    }
  }
  const match = add(MATCH, [], -1)
  const start = build(tree, match)
  // The start state goes last, so the automaton's entry is always states.length - 1.
  add(SPLIT, [], start, start)
  return states
}

/** The compiled matcher of `pattern`, or why the pattern is refused. */
export const compileMatcher = (pattern: string, options: MatchOptions): LineMatcher | PatternError => {
  const tree = options.regex ? parsePattern(pattern) : literalPattern(pattern)
  if (tree instanceof PatternError) return tree
  let nfa: ReadonlyArray<NfaState>
  try {
    nfa = compileNfa(tree, options.ignoreCase)
  } catch (error) {
    if (error instanceof PatternError) return error
    throw error
  }
  const entry = nfa.length - 1
  // Character classes: code points between two boundaries are alike for every state.
  const bounds = [...new Set(nfa.flatMap((s) => s.set.flatMap(([low, high]) => [low, high + 1])))].sort(
    (a, b) => a - b
  )
  const classOf = (code: number): number => {
    let low = 0
    let high = bounds.length
    while (low < high) {
      const mid = (low + high) >> 1
      if (bounds[mid]! <= code) low = mid + 1
      else high = mid
    }
    return low
  }
  const representative = (cls: number): number => (cls === 0 ? -1 : bounds[cls - 1]!)

  /** Follow splits (and, at the line's start, BOL; at its end, EOL) from `roots`. */
  const closure = (roots: ReadonlyArray<number>, atStart: boolean, atEnd: boolean): Array<number> => {
    const seen = new Set<number>()
    const kept: Array<number> = []
    const stack = [...roots]
    while (stack.length > 0) {
      const id = stack.pop()!
      if (id < 0 || seen.has(id)) continue
      seen.add(id)
      const s = nfa[id]!
      if (s.kind === SPLIT) stack.push(s.out2, s.out)
      else if (s.kind === BOL) {
        if (atStart) stack.push(s.out)
      } else if (s.kind === EOL && atEnd) stack.push(s.out)
      else kept.push(id)
    }
    return kept.sort((a, b) => a - b)
  }

  let cache = new Map<string, DfaState>()
  const stateOf = (states: Array<number>): DfaState => {
    const key = states.join(",")
    const known = cache.get(key)
    if (known !== undefined) return known
    if (cache.size >= MAX_DFA_STATES) {
      // Unlink the old states too, so the one still in hand cannot keep the old graph alive.
      for (const old of cache.values()) old.next.clear()
      cache = new Map()
    }
    const made: DfaState = { states, matched: states.some((id) => nfa[id]!.kind === MATCH), next: new Map() }
    cache.set(key, made)
    return made
  }
  const step = (from: DfaState, cls: number): DfaState => {
    const known = from.next.get(cls)
    if (known !== undefined) return known
    const code = representative(cls)
    const targets: Array<number> = [entry]
    for (const id of from.states) {
      const s = nfa[id]!
      if (s.kind === CHARS && code >= 0 && inSet(s.set, code)) targets.push(s.out)
    }
    const to = stateOf(closure(targets, false, false))
    from.next.set(cls, to)
    return to
  }
  const endsMatched = (at: DfaState, atStart: boolean): boolean =>
    at.matched ||
    closure(
      at.states.filter((id) => nfa[id]!.kind === EOL),
      atStart,
      true
    ).some((id) => nfa[id]!.kind === MATCH)

  const test = (raw: string): boolean => {
    const line = options.ignoreCase ? raw.toLowerCase() : raw
    let at = stateOf(closure([entry], true, false))
    if (at.matched) return true
    for (let i = 0; i < line.length; ) {
      const code = line.codePointAt(i)!
      i += code > 0xffff ? 2 : 1
      at = step(at, classOf(code))
      if (at.matched) return true
    }
    return endsMatched(at, line.length === 0)
  }
  return { test }
}
