/**
 * The keys send_keys types: literal text (validated as a command is: no control, escape or
 * invisible characters can hide inside it) and named keys, each turned into the bytes a terminal's
 * keyboard sends for it (xterm, normal cursor mode), and shown to the person in readable form
 * (`"y" Enter`). Pure.
 */
import { codePointLength, validateText } from "./CommandValidation.js"

const CONTROL_LETTERS = "abcdefghijklmnopqrstuvwxyz"

const NAMED: Readonly<Record<string, string>> = {
  Enter: "\r",
  Tab: "\t",
  Escape: "\x1b",
  Backspace: "\x7f",
  Up: "\x1b[A",
  Down: "\x1b[B",
  Right: "\x1b[C",
  Left: "\x1b[D",
  Home: "\x1b[H",
  End: "\x1b[F",
  PageUp: "\x1b[5~",
  PageDown: "\x1b[6~",
  F1: "\x1bOP",
  F2: "\x1bOQ",
  F3: "\x1bOR",
  F4: "\x1bOS",
  F5: "\x1b[15~",
  F6: "\x1b[17~",
  F7: "\x1b[18~",
  F8: "\x1b[19~",
  F9: "\x1b[20~",
  F10: "\x1b[21~",
  F11: "\x1b[23~",
  F12: "\x1b[24~",
  ...Object.fromEntries(
    Array.from(CONTROL_LETTERS, (letter, i) => [`C-${letter}`, String.fromCharCode(i + 1)] as const)
  )
}

/** Every key name send_keys accepts, in a fixed order. */
export const KEY_NAMES: ReadonlyArray<string> = Object.keys(NAMED)

/** One item of send_keys' `keys`: literal text, or one named key. */
export type KeyItem = { readonly text: string } | { readonly key: string }

/** Most items in one call, and most code points of text over all items. */
export const MAX_KEY_ITEMS = 64
export const MAX_KEY_TEXT_CODE_POINTS = 4096

/** Why `items` cannot be sent, or undefined. */
export const validateKeys = (items: ReadonlyArray<KeyItem>): string | undefined => {
  if (items.length === 0) return "keys must hold at least one item"
  if (items.length > MAX_KEY_ITEMS) return `keys must hold at most ${MAX_KEY_ITEMS} items`
  let total = 0
  for (const [i, item] of items.entries()) {
    if ("key" in item) {
      if (NAMED[item.key] === undefined) return `keys.${i}.key is not a known key name`
      continue
    }
    if (item.text.length === 0) return `keys.${i}.text must be non-empty`
    const invalid = validateText(`keys.${i}.text`, item.text)
    if (invalid !== undefined) return `${invalid}; send named keys (Enter, Tab, C-c…) as {"key": …} items`
    total += codePointLength(item.text)
    if (total > MAX_KEY_TEXT_CODE_POINTS)
      return `keys must hold at most ${MAX_KEY_TEXT_CODE_POINTS} characters of text in all`
  }
  return undefined
}

/** The bytes (as a string of code points) the terminal receives for `items`, in order. */
export const keyBytes = (items: ReadonlyArray<KeyItem>): string =>
  items.map((item) => ("key" in item ? (NAMED[item.key] ?? "") : item.text)).join("")

/** The keys as a person reads them: text quoted (JSON escapes), key names bare: `"y" Enter`. */
export const readableKeys = (items: ReadonlyArray<KeyItem>): string =>
  items.map((item) => ("key" in item ? item.key : JSON.stringify(item.text))).join(" ")
