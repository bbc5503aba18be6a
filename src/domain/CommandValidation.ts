/**
 * Pure request validation for run_command (DESIGN.md, run_command protocol step 1) and for the
 * session id every tool takes. Each validator returns an `invalid_request` message, or undefined
 * when the value is acceptable. Lengths are counted in Unicode code points, not UTF-16 units.
 */
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

/** The first forbidden character of `text` with its code-point position, as a message fragment. */
const forbiddenCharacter = (field: string, text: string): string | undefined => {
  let position = 0
  for (const char of text) {
    const cp = char.codePointAt(0) ?? 0
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
    position++
  }
  return undefined
}

/**
 * Why `command` cannot be sent, or undefined when it can: non-blank, at most 8192 code points,
 * one line, no control, bidi-control or lone-surrogate characters. Leading and trailing spaces are
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
 * non-blank, at most 256 code points, no control, bidi-control or lone-surrogate characters.
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
