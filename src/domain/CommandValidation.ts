/**
 * Pure request validation for run_command (DESIGN.md, run_command protocol step 1) and for the
 * session id every tool takes. Each validator returns an `invalid_request` message, or undefined
 * when the value is acceptable. Lengths are counted in Unicode code points, not UTF-16 units.
 */
import {
  DEFAULT_IGNORABLE,
  EMOJI_MODIFIER,
  EXTENDED_PICTOGRAPHIC,
  FORMAT,
  IDEOGRAPHIC,
  SPACE_SEPARATOR
} from "../generated/unicode/UnicodeProperties.js"
import { isBidiControl } from "./Hygiene.js"

/** Most code points a command may have (the prototype's limit, counted as Python does). */
export const MAX_COMMAND_CODE_POINTS = 8192
/** Most code points a session id (or request id) may have. */
export const MAX_SESSION_ID_CODE_POINTS = 256

/** C0 (U+0000–U+001F, incl. TAB, LF, CR, ESC), DEL (U+007F) and C1 (U+0080–U+009F, incl. NEL). */
const isControl = (cp: number): boolean => cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)

/** U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR: a command is a single line. */
const isLineSeparator = (cp: number): boolean => cp === 0x2028 || cp === 0x2029

const isLoneSurrogate = (cp: number): boolean => cp >= 0xd800 && cp <= 0xdfff

const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`

/** Number of Unicode code points in `text` (a lone surrogate counts as one). */
export const codePointLength = (text: string): number => {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
    }
    count++
  }
  return count
}

/**
 * Whether `cp` is in a property's table (src/generated/unicode: ascending [first, last] ranges,
 * flattened), by binary search. The tables stand in for `\p{…}` regexes, whose first use makes V8
 * load the sets from Node's ICU data (docs/benchmarks.md, "Memory, step by step").
 */
const is = (ranges: ReadonlyArray<number>, cp: number | undefined): boolean => {
  if (cp === undefined) return false
  let lo = 0
  let hi = ranges.length / 2 - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (cp < ranges[2 * mid]!) hi = mid - 1
    else if (cp > ranges[2 * mid + 1]!) lo = mid + 1
    else return true
  }
  return false
}

/** Characters that are not ignorable or format characters yet show as blank. */
const BLANK_LOOKALIKES: ReadonlySet<number> = new Set([0x115f, 0x1160, 0x3164, 0xffa0, 0x2800])

const ZWJ = 0x200d
const VS15 = 0xfe0e
const VS16 = 0xfe0f
const isKeycapBase = (cp: number | undefined) =>
  cp !== undefined && ((cp >= 0x30 && cp <= 0x39) || cp === 0x23 || cp === 0x2a)

/**
 * The few invisible code points that only shape the visible character next to them, where they
 * do: a zero-width joiner between two emoji (👩‍💻), the emoji/text presentation selectors after an
 * emoji or a keycap base (❤️, 1️⃣), an ideographic variation selector after a CJK ideograph.
 */
const shapesNeighbour = (cp: number, before: number | undefined, after: number | undefined): boolean => {
  if (cp === ZWJ)
    return (
      (is(EXTENDED_PICTOGRAPHIC, before) || is(EMOJI_MODIFIER, before) || before === VS16) &&
      is(EXTENDED_PICTOGRAPHIC, after)
    )
  if (cp === VS15 || cp === VS16) return is(EXTENDED_PICTOGRAPHIC, before) || isKeycapBase(before)
  if (cp >= 0xe0100 && cp <= 0xe01ef) return is(IDEOGRAPHIC, before)
  return false
}

/**
 * Why `cp` does not show as what it is — a format character (Cf: zero-width characters, soft
 * hyphen, BOM, tags, invisible operators…), a space other than U+0020, a code point that renders
 * as nothing, a blank look-alike — or undefined when it shows as itself.
 */
const invisibleClass = (cp: number, before: number | undefined, after: number | undefined) => {
  if (cp === 0x20 || cp < 0x80) return undefined
  if (shapesNeighbour(cp, before, after)) return undefined
  if (is(FORMAT, cp)) return "a format character, which does not render"
  if (is(SPACE_SEPARATOR, cp))
    return "a space other than U+0020, which separates words unlike the space it looks like"
  if (is(DEFAULT_IGNORABLE, cp)) return "a character that does not render"
  if (BLANK_LOOKALIKES.has(cp)) return "a blank look-alike"
  return undefined
}

/** The first forbidden character of `text` with its code-point position, as a message fragment. */
const forbiddenCharacter = (field: string, text: string): string | undefined => {
  const cps = Array.from(text, (char) => char.codePointAt(0) ?? 0)
  for (let position = 0; position < cps.length; position++) {
    const cp = cps[position] ?? 0
    if (cp === 0) return `${field} must not contain NUL characters`
    if (isControl(cp)) {
      return `${field} must not contain control characters (${hex(cp)} at position ${position}); tabs, newlines and escape sequences are not accepted`
    }
    if (isLineSeparator(cp)) return `${field} must be a single line (${hex(cp)} at position ${position})`
    if (isBidiControl(cp)) {
      return `${field} must not contain bidirectional control characters (${hex(cp)} at position ${position})`
    }
    if (isLoneSurrogate(cp))
      return `${field} must be valid Unicode text (lone surrogate at position ${position})`
    const invisible = invisibleClass(cp, cps[position - 1], cps[position + 1])
    if (invisible !== undefined) {
      return `${field} must not contain invisible or look-alike characters (${hex(cp)} at position ${position}: ${invisible}); what is shown would not be what runs`
    }
  }
  return undefined
}

/**
 * Why `command` cannot be sent, or undefined when it can: non-blank, at most 8192 code points,
 * one line, no control, bidi-control or lone-surrogate characters, nothing invisible or blank
 * that is not U+0020 (see invisibleClass; specs/tools.md lists the classes). Leading and trailing spaces are
 * kept as typed (a leading space can keep a command out of shell history).
 */
export const validateCommand = (command: string): string | undefined => {
  if (command.trim().length === 0) return "command must be non-empty"
  // Cheap bound first: a string with more UTF-16 units than 2×limit is over the limit anyway.
  if (command.length > 2 * MAX_COMMAND_CODE_POINTS || codePointLength(command) > MAX_COMMAND_CODE_POINTS) {
    return `command must be at most ${MAX_COMMAND_CODE_POINTS} characters`
  }
  return forbiddenCharacter("command", command)
}

/**
 * Why `value` is not a usable identifier named `field` (a session or request id), or undefined:
 * non-blank, at most 256 code points, and the same character rules as a command.
 */
export const validateIdentifier = (field: string, value: string): string | undefined => {
  if (value.trim().length === 0) return `${field} must be non-empty`
  if (value.length > 2 * MAX_SESSION_ID_CODE_POINTS || codePointLength(value) > MAX_SESSION_ID_CODE_POINTS) {
    return `${field} must be at most ${MAX_SESSION_ID_CODE_POINTS} characters`
  }
  return forbiddenCharacter(field, value)
}

/** Why `sessionId` is not a usable session id, or undefined. */
export const validateSessionId = (sessionId: string): string | undefined =>
  validateIdentifier("session_id", sessionId)

/**
 * Why `text` (a piece of send_keys text named `field`) cannot be typed, or undefined: the same
 * character rules as a command (no control, line-separator, bidi, lone-surrogate or invisible
 * characters); length and blankness are the caller's.
 */
export const validateText = (field: string, text: string): string | undefined =>
  forbiddenCharacter(field, text)
