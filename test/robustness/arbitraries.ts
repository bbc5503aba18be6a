/**
 * fast-check arbitraries for tool arguments: hostile values of every JSON type (control, bidi and
 * lone-surrogate strings, huge strings, out-of-range and non-finite numbers, nesting), near-valid
 * arguments built from real session ids, and argument objects with extra or missing keys.
 */
import fc from "fast-check"
import { CONTRACT, issuedCommandIds } from "./oracle.js"

/** Characters the contract singles out: controls, separators, bidi, surrogates, look-alikes. */
const SPECIAL = [
  "\u0000",
  "\t",
  "\n",
  "\r",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u009b",
  "\u2028",
  "\u2029",
  "\u202a",
  "\u202e",
  "\u2066",
  "\u2069",
  "\u200e",
  "\u200f",
  "\u061c",
  "\u200b",
  "\ufeff",
  "\u00a0",
  "\u3000",
  " ",
  "\ud800",
  "\udfff",
  "😀",
  "é",
  "e\u0301",
  ";",
  "$(",
  "`",
  "|",
  "\\",
  '"'
]

const specialString = fc.string({
  unit: fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...SPECIAL) },
    { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 1 }) }
  ),
  maxLength: 40
})

/** Strings at and around the code-point limits (an emoji is one code point, two UTF-16 units). */
const sizedString = fc.constantFrom(
  "x".repeat(256),
  "x".repeat(257),
  "😀".repeat(256),
  "😀".repeat(257),
  "a".repeat(8192),
  "a".repeat(8193),
  "😀".repeat(8192),
  "😀".repeat(8193),
  `${"a".repeat(8191)}\n`,
  " ".repeat(9000),
  "b".repeat(200_000)
)

export const anyString = fc.oneof(
  { weight: 3, arbitrary: specialString },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 1, arbitrary: sizedString },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "\t", "5", "true", "null", "300", "1e3") }
)

export const anyNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1, -1, 0.5, 300, 300.0001, 2000, 2001, 131072, 131073, 1e308, Number.NaN),
  fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MAX_SAFE_INTEGER + 2, 5e-324)
)

/** Any JSON-ish value: every type, nested. NaN and ±Infinity included (the transport is in memory). */
export const anyValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    anyString,
    anyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(anyString, tie("value"), { maxKeys: 3 })
  )
})).value

/** Cursors read_terminal really returned (set by the suite), so `since` also sees real ones. */
export const cursors: Array<string> = []

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** Every command_id list_commands returned so far, of any session. */
const issued = (): ReadonlyArray<string> => [...issuedCommandIds.values()].flat()

/** One character of `id` at `at` replaced by the next base64url character (or a "-" past it). */
const editAt = (id: string, at: number): string => {
  const i = at % id.length
  const next = BASE64URL[(BASE64URL.indexOf(id[i]!) + 1) % BASE64URL.length] ?? "-"
  return `${id.slice(0, i)}${next}${id.slice(i + 1)}`
}

/** The ways a real command_id is edited: a character, case, its prefix, padding, a cut, an extension. */
const EDITS = ["char", "last", "upper", "lower", "prefix", "CMD", "pad", "cut", "grow", "space"] as const

const edited = (id: string, how: (typeof EDITS)[number], at: number): string => {
  switch (how) {
    case "char":
      return editAt(id, 4 + (at % Math.max(id.length - 4, 1)))
    case "last":
      // The last character, where base64url's spare bits are: an edit that may decode to the same bytes.
      return editAt(id, id.length - 1)
    case "upper":
      return id.toUpperCase()
    case "lower":
      return id.toLowerCase()
    case "prefix":
      return id.slice(4)
    case "CMD":
      return `CMD_${id.slice(4)}`
    case "pad":
      return `${id}==`
    case "cut":
      return id.slice(0, Math.max(5, id.length - 1 - (at % 8)))
    case "grow":
      return `${id}${BASE64URL[at % BASE64URL.length]}`
    case "space":
      return ` ${id}`
  }
}

/**
 * command_ids (read_command_output's `command_id`, list_commands' `since`): real ones of any
 * session, each edited, read_terminal's cursors (sealed by the same process key), and made up.
 */
const commandIdArb = (): fc.Arbitrary<string> => {
  const real = issued().length > 0 ? issued() : ["cmd_none"]
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...real) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...real), fc.constantFrom(...EDITS), fc.nat())
        .map(([id, how, at]) => edited(id, how, at))
    },
    { weight: 1, arbitrary: fc.constantFrom(...(cursors.length > 0 ? cursors : ["none"])) },
    {
      weight: 2,
      arbitrary: fc
        .string({ unit: fc.constantFrom(...BASE64URL), maxLength: 60 })
        .map((body) => `cmd_${body}`)
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) }
  )
}

/** A valid value for one field of the contract (plus its near misses, which `anyValue` covers). */
const validFor = (tool: string, key: string, ids: fc.Arbitrary<string>): fc.Arbitrary<unknown> => {
  switch (key) {
    case "since":
      if (tool === "list_commands") return commandIdArb()
      return fc.oneof(
        fc.constantFrom(...(cursors.length > 0 ? cursors : ["none"])),
        fc.string({ maxLength: 40 })
      )
    case "command_id":
      return commandIdArb()
    case "session_id":
    case "request_id":
      return ids
    case "limit":
      return fc.oneof(
        fc.integer({ min: 1, max: 200 }),
        fc.constantFrom(1, 200),
        // Near misses: just out of range, fractional, a number as text.
        fc.constantFrom(0, 201, -1, 20.5, "20")
      )
    case "from":
      return fc.oneof(
        fc.constantFrom("tail", "head", 0, 1),
        fc.nat({ max: 10 }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        // Near misses: case, spacing, a number as text, negative and fractional offsets.
        fc.constantFrom("Tail", "HEAD", " tail", "", "1", -1, 1.5, -0.5)
      )
    case "command":
      return fc.constantFrom("true", "echo fuzz", " echo lead", "echo 😀", "printf %s x", "a".repeat(8192))
    case "keys":
      return fc.array(
        fc.oneof(
          fc.record({ text: fc.constantFrom("y", "q", " ", "😀", "a".repeat(4096)) }),
          fc.record({ key: fc.constantFrom("Enter", "C-c", "F12", "Up", "C-z") })
        ),
        { minLength: 1, maxLength: 5 }
      )
    case "wait_for_completion":
      return fc.boolean()
    case "timeout_seconds":
      return fc.oneof(fc.double({ min: 5e-324, max: 300, noNaN: true }), fc.constantFrom(300, 1))
    case "wait_seconds":
      return fc.oneof(fc.constantFrom(0, -0, 0.01), fc.double({ min: 0, max: 0.05, noNaN: true }))
    case "max_lines":
    case "max_output_lines":
      return fc.integer({ min: 1, max: 2000 })
    default:
      if (key === "max_chars" || key === "max_output_chars") return fc.integer({ min: 1, max: 131072 })
      throw new Error(`no valid generator for ${tool}.${key}`)
  }
}

/** Keys that are not arguments: case and spacing variants, prototype names, random text. */
const strayKey = fc.oneof(
  fc.constantFrom(
    "SESSION_ID",
    "sessionId",
    "session_id ",
    "cmd",
    "timeout",
    "__proto__",
    "constructor",
    "toString",
    ""
  ),
  fc.string({ maxLength: 12 })
)

/** Builds an argument object with own properties only (so "__proto__" is a real key). */
const toArgs = (entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of entries) {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  }
  return out
}

/** The field of each tool that holds a command_id, valid only with the session_id it was listed for. */
const SEALED_TO_SESSION: Record<string, string> = {
  list_commands: "since",
  read_command_output: "command_id"
}

/**
 * `args` with its session_id and sealed field (both present) replaced by a session and one of its
 * own command_ids, picked by `pick`; unchanged when either is absent or no session has a command.
 */
const pairedWithSession = (
  args: Record<string, unknown> | undefined,
  field: string,
  pick: number
): Record<string, unknown> | undefined => {
  const pairs = [...issuedCommandIds].flatMap(([sessionId, ids]) => ids.map((id) => [sessionId, id] as const))
  if (args === undefined || pairs.length === 0) return args
  if (!Object.hasOwn(args, "session_id") || !Object.hasOwn(args, field)) return args
  const [sessionId, id] = pairs[pick % pairs.length]!
  return toArgs(
    Object.entries(args).map(([key, value]) =>
      key === "session_id" ? [key, sessionId] : key === field ? [key, id] : [key, value]
    )
  )
}

/**
 * Arguments for `tool`: mostly near-valid (each known field valid with probability ~0.8, present
 * or not when optional, sometimes an extra key), sometimes a fully arbitrary object, and sometimes
 * no arguments at all. `ids` supplies identifiers, real ones included; a command_id is half the
 * time paired with the session it was listed for.
 */
export const argsFor = (
  tool: string,
  ids: fc.Arbitrary<string>
): fc.Arbitrary<Record<string, unknown> | undefined> => {
  const fields = Object.entries(CONTRACT[tool] ?? {})
  const field = ([key, spec]: readonly [string, { readonly required: boolean }]) =>
    fc
      .tuple(
        fc.oneof({ weight: 8, arbitrary: validFor(tool, key, ids) }, { weight: 2, arbitrary: anyValue }),
        fc.integer({ min: 0, max: 9 })
      )
      .map(([value, dice]) => ((spec.required ? dice > 0 : dice > 4) ? [[key, value] as const] : []))
  const nearValid = fc
    .tuple(
      fc.tuple(...fields.map(field)),
      fc.oneof(
        { weight: 7, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.tuple(strayKey, anyValue) }
      )
    )
    .map(([present, extra]) => toArgs([...present.flat(), ...(extra === null ? [] : [extra])]))
  const arbitrary = fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...fields.map(([k]) => k), "x"), strayKey), anyValue), {
      maxLength: 4
    })
    .map(toArgs)
  const any = fc.oneof(
    { weight: 6, arbitrary: fields.length === 0 ? fc.constant({}) : nearValid },
    { weight: 3, arbitrary },
    { weight: 1, arbitrary: fc.constant(undefined) }
  )
  const sealed = SEALED_TO_SESSION[tool]
  if (sealed === undefined) return any
  // Half the calls that name a command_id name one of their session's own (else nearly all would be forged).
  return fc
    .tuple(any, fc.boolean(), fc.nat())
    .map(([args, pair, pick]) => (pair ? pairedWithSession(args, sealed, pick) : args))
}
