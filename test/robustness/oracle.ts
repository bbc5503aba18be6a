/**
 * An independent oracle for tool arguments, written from specs/tools.md (not from src/): given a
 * tool and the arguments sent, is the call valid, invalid, or in a corner the contract leaves
 * open ("either")? Used by the fuzz suite to check every generated call.
 */

export type Verdict = "valid" | "invalid" | "either"

type Args = Record<string, unknown> | undefined

/** C0 (incl. TAB, LF, CR, ESC, NUL), DEL and C1 (incl. NEL). */
const isControl = (cp: number) => cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)
const isBidi = (cp: number) =>
  (cp >= 0x202a && cp <= 0x202e) ||
  (cp >= 0x2066 && cp <= 0x2069) ||
  cp === 0x200e ||
  cp === 0x200f ||
  cp === 0x061c
const isLineSeparator = (cp: number) => cp === 0x2028 || cp === 0x2029
const isSurrogate = (cp: number) => cp >= 0xd800 && cp <= 0xdfff
/** Invisible or blank but not U+0020: Cf, Zs, default-ignorable, the blank look-alikes. */
const INVISIBLE =
  /^(?:\p{gc=Cf}|\p{gc=Zs}|\p{Default_Ignorable_Code_Point}|[\u115F\u1160\u3164\uFFA0\u2800])$/u
const isInvisible = (cp: number) =>
  cp !== 0x20 && !isSurrogate(cp) && INVISIBLE.test(String.fromCodePoint(cp))
/** The joiner and selectors the contract allows next to an emoji or ideograph (decided by context). */
const isContextual = (cp: number) =>
  cp === 0x200d || cp === 0xfe0e || cp === 0xfe0f || (cp >= 0xe0100 && cp <= 0xe01ef)
/** Refused outright, or (for the contextual ones) "either": the fuzz does not model emoji context. */
const invisibleVerdict = (cps: ReadonlyArray<number>): Verdict =>
  cps.some((cp) => isInvisible(cp) && !isContextual(cp))
    ? "invalid"
    : cps.some(isContextual)
      ? "either"
      : "valid"

/** Code points; a lone surrogate is its own code point (Array.from keeps it). */
const codePoints = (text: string): Array<number> => Array.from(text, (c) => c.codePointAt(0) ?? 0)

/** "Blank" as the contract means it: nothing but white space (JS `\s`, the set String#trim removes). */
const isBlank = (text: string) => /^\s*$/u.test(text.replace(/[\uD800-\uDFFF]/g, "x"))

const and = (a: Verdict, b: Verdict): Verdict =>
  a === "invalid" || b === "invalid" ? "invalid" : a === "either" || b === "either" ? "either" : "valid"

/** session_id / request_id: non-blank, ≤ 256 code points, no control, bidi, invisible or lone surrogates. */
export const identifier = (value: unknown): Verdict => {
  if (typeof value !== "string" || isBlank(value)) return "invalid"
  const cps = codePoints(value)
  if (cps.length > 256) return "invalid"
  if (cps.some((cp) => isControl(cp) || isBidi(cp) || isSurrogate(cp))) return "invalid"
  // The identifier rules do not list U+2028/U+2029 (the command rules do): refusing is fine too.
  return and(cps.some(isLineSeparator) ? "either" : "valid", invisibleVerdict(cps))
}

/** command: non-blank, ≤ 8192 code points, one line, no control, bidi, invisible or lone surrogates. */
export const command = (value: unknown): Verdict => {
  if (typeof value !== "string" || isBlank(value)) return "invalid"
  const cps = codePoints(value)
  if (cps.length > 8192) return "invalid"
  return cps.some((cp) => isControl(cp) || isBidi(cp) || isSurrogate(cp) || isLineSeparator(cp))
    ? "invalid"
    : invisibleVerdict(cps)
}

const integerIn =
  (min: number, max: number) =>
  (value: unknown): Verdict =>
    typeof value === "number" && Number.isInteger(value) && value >= min && value <= max ? "valid" : "invalid"

const numberIn =
  (test: (n: number) => boolean) =>
  (value: unknown): Verdict =>
    typeof value === "number" && test(value) ? "valid" : "invalid"

const boolean = (value: unknown): Verdict => (typeof value === "boolean" ? "valid" : "invalid")

/** send_keys' key names, as specs/tools.md lists them. */
const KEY_NAMES = new Set([
  "Enter",
  "Tab",
  "Escape",
  "Backspace",
  "Up",
  "Down",
  "Right",
  "Left",
  "Home",
  "End",
  "PageUp",
  "PageDown",
  ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
  ...Array.from("abcdefghijklmnopqrstuvwxyz", (c) => `C-${c}`)
])

/** send_keys' `keys`: 1 … 64 items, each exactly {text} (non-empty, the command's character rules) or {key}; ≤ 4096 text code points. */
const keyItems = (value: unknown): Verdict => {
  if (!Array.isArray(value) || value.length === 0 || value.length > 64) return "invalid"
  let result: Verdict = "valid"
  let total = 0
  for (const item of value) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return "invalid"
    // An own "__proto__" key is turned into the prototype by the SDK's parsing (see verdict).
    if (Object.hasOwn(item, "__proto__")) return "either"
    const keys = Object.keys(item)
    if (keys.length !== 1) return "invalid"
    const record = item as Record<string, unknown>
    if (keys[0] === "key") {
      if (typeof record.key !== "string" || !KEY_NAMES.has(record.key)) return "invalid"
      continue
    }
    const text = record.text
    if (keys[0] !== "text" || typeof text !== "string" || text.length === 0) return "invalid"
    const cps = codePoints(text)
    if (cps.some((cp) => isControl(cp) || isBidi(cp) || isSurrogate(cp) || isLineSeparator(cp)))
      return "invalid"
    result = and(result, invisibleVerdict(cps))
    total += cps.length
  }
  return total > 4096 ? "invalid" : result
}

/**
 * read_command_output's `from`: "tail", "head", or an integer line offset, 0 or more. The contract
 * sets no upper bound; an integer past 2^53 (which JSON cannot carry exactly) may be refused.
 */
const outputFrom = (value: unknown): Verdict => {
  if (value === "tail" || value === "head") return "valid"
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) return "invalid"
  return Number.isSafeInteger(value) ? "valid" : "either"
}

/**
 * The command_ids list_commands returned, per session_id, oldest first (the suite records every
 * listing). The contract makes these the only valid ones: a command_id is sealed to its session
 * and to this process, so anything else (made up, edited, of another session) is invalid_request.
 */
export const issuedCommandIds = new Map<string, ReadonlyArray<string>>()

/** A command_id (or list_commands' `since`): one list_commands returned for this call's session_id. */
const commandId = (value: unknown, args: Record<string, unknown>): Verdict => {
  const shape = identifier(value)
  if (shape === "invalid" || typeof args.session_id !== "string") return "invalid"
  return issuedCommandIds.get(args.session_id)?.includes(value as string) === true ? shape : "invalid"
}

interface Field {
  readonly required: boolean
  /** The verdict for this field's value; `args` is the whole call, for fields bound to another. */
  readonly check: (value: unknown, args: Record<string, unknown>) => Verdict
}

/** Each tool's arguments: the table in specs/tools.md. */
export const CONTRACT: Record<string, Record<string, Field>> = {
  list_sessions: {},
  get_current_session: {},
  read_terminal: {
    session_id: { required: true, check: identifier },
    max_lines: { required: false, check: integerIn(1, 2000) },
    max_chars: { required: false, check: integerIn(1, 131072) },
    // A string is decoded as a cursor, which only a real cursor of that very session passes.
    since: {
      required: false,
      check: (v) => (typeof v === "string" && [...v].length <= 256 ? "either" : "invalid")
    }
  },
  list_commands: {
    session_id: { required: true, check: identifier },
    limit: { required: false, check: integerIn(1, 200) },
    since: { required: false, check: commandId }
  },
  read_command_output: {
    session_id: { required: true, check: identifier },
    command_id: { required: true, check: commandId },
    max_lines: { required: false, check: integerIn(1, 2000) },
    max_chars: { required: false, check: integerIn(1, 131072) },
    from: { required: false, check: outputFrom }
  },
  run_command: {
    session_id: { required: true, check: identifier },
    command: { required: true, check: command },
    wait_for_completion: { required: false, check: boolean },
    timeout_seconds: { required: false, check: numberIn((n) => n > 0 && n <= 300) },
    max_output_chars: { required: false, check: integerIn(1, 131072) },
    max_output_lines: { required: false, check: integerIn(1, 2000) }
  },
  get_command_result: {
    request_id: { required: true, check: identifier },
    wait_seconds: { required: false, check: numberIn((n) => n >= 0 && n <= 300) }
  },
  interrupt_command: {
    request_id: { required: true, check: identifier },
    wait_seconds: { required: false, check: numberIn((n) => n >= 0 && n <= 60) }
  },
  send_keys: {
    session_id: { required: true, check: identifier },
    keys: { required: true, check: keyItems }
  }
}

/** The verdict for a whole call: unknown keys and missing required keys are invalid. */
export const verdict = (tool: string, args: Args): Verdict => {
  const fields = CONTRACT[tool]
  if (fields === undefined) throw new Error(`oracle: unknown tool ${tool}`)
  const given = args ?? {}
  let result: Verdict = "valid"
  for (const key of Object.keys(given)) {
    // The MCP SDK's request parsing turns an own "__proto__" key into the prototype before
    // TermPilot sees the arguments (inherited values are not read), so refusing it is not possible.
    if (key === "__proto__") {
      result = and(result, "either")
      continue
    }
    const field = fields[key]
    if (field === undefined || !Object.hasOwn(fields, key)) return "invalid"
    result = and(result, field.check(given[key], given))
  }
  for (const [key, field] of Object.entries(fields)) {
    if (field.required && !Object.hasOwn(given, key)) return "invalid"
  }
  return result
}
