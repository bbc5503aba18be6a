/**
 * Tail bounding of terminal text: keep the newest lines within a line and a character budget.
 * Characters are Unicode code points (as the prototype's Python limits were), never UTF-16 units,
 * and a surrogate pair is never split. Also the models of bounds and bounded text, which the
 * Terminal contract (src/services/Terminal.ts) re-exports.
 */

/** Bounds for a read: at most `maxLines` lines and `maxChars` code points, newest kept. */
export interface ReadBounds {
  readonly maxLines: number
  readonly maxChars: number
}

/** Bounded text: `text` is the kept tail, `lineCount` its line count, `truncated` if bounds applied. */
export interface BoundedText {
  readonly text: string
  readonly lineCount: number
  readonly truncated: boolean
}

/** The last `count` code points of `text` (the whole text when it is shorter). */
export const codePointTail = (text: string, count: number): string => {
  if (count <= 0) return ""
  let index = text.length
  let taken = 0
  while (index > 0 && taken < count) {
    const low = text.charCodeAt(index - 1)
    const high = index >= 2 ? text.charCodeAt(index - 2) : 0
    index -= low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? 2 : 1
    taken++
  }
  return text.slice(index)
}

const codePoints = (text: string): number => {
  let count = 0
  for (const _ of text) count++
  return count
}

/**
 * Keep lines of `lines` in the order `order` visits them (newest first for a tail, oldest first
 * for a head) within the bounds; a first kept line alone over the character budget is cut by `cut`.
 */
const keep = (
  lines: ReadonlyArray<string>,
  bounds: ReadBounds,
  order: Iterable<number>,
  cut: (line: string, count: number) => string
): { kept: Array<string>; truncated: boolean } => {
  const maxLines = Math.max(0, Math.floor(bounds.maxLines))
  const maxChars = Math.max(0, Math.floor(bounds.maxChars))
  const kept: Array<string> = []
  let used = 0
  for (const i of order) {
    if (kept.length >= maxLines) return { kept, truncated: true }
    const line = (lines[i] ?? "").trimEnd()
    const cost = codePoints(line) + (kept.length === 0 ? 0 : 1)
    if (used + cost > maxChars) {
      if (kept.length === 0 && maxChars > 0) kept.push(cut(line, maxChars))
      return { kept, truncated: true }
    }
    kept.push(line)
    used += cost
  }
  return { kept, truncated: false }
}

function* indexes(count: number, backwards: boolean): Generator<number> {
  for (let i = 0; i < count; i++) yield backwards ? count - 1 - i : i
}

/**
 * Bound `lines` (logical lines, oldest first, without line terminators) to the newest
 * `maxLines` lines and `maxChars` code points, counting the "\n" between kept lines. Trailing
 * whitespace of each line is removed first (terminal rows are padded). When over `maxChars`,
 * whole older lines are dropped; only when the newest line alone exceeds the budget is it cut,
 * keeping its tail. `truncated` says whether anything was left out.
 */
export const boundTail = (lines: ReadonlyArray<string>, bounds: ReadBounds): BoundedText => {
  const { kept, truncated } = keep(lines, bounds, indexes(lines.length, true), codePointTail)
  kept.reverse()
  return { text: kept.join("\n"), lineCount: kept.length, truncated }
}

/** The first `count` code points of `text` (the whole text when it is shorter). */
const codePointHead = (text: string, count: number): string => {
  let taken = 0
  let index = 0
  for (const ch of text) {
    if (taken >= count) break
    index += ch.length
    taken++
  }
  return text.slice(0, index)
}

/**
 * Bound `lines` like boundTail, but keeping the oldest: the first `maxLines` lines within
 * `maxChars` code points (a first line alone over the budget is cut, keeping its head).
 */
export const boundHead = (lines: ReadonlyArray<string>, bounds: ReadBounds): BoundedText => {
  const { kept, truncated } = keep(lines, bounds, indexes(lines.length, false), codePointHead)
  return { text: kept.join("\n"), lineCount: kept.length, truncated }
}
