/**
 * Secret redaction for text handed to the model or written to the audit log: private-key blocks,
 * provider tokens, JWTs, bearer credentials, `key=value` secrets and URL passwords become
 * `[REDACTED:<kind>]`. Every pattern is anchored or bounded so that matching stays linear in the
 * input (no nested or overlapping quantifiers). High-entropy strings without a known shape are kept.
 */

export interface Redacted {
  readonly text: string
  readonly count: number
  /** Distinct kinds that were redacted, sorted. */
  readonly kinds: ReadonlyArray<string>
}

export const redactionMarker = (kind: string): string => `[REDACTED:${kind}]`

const MARKER_PREFIX = "[REDACTED:"

type Tally = Map<string, number>

const note = (tally: Tally, kind: string): string => {
  tally.set(kind, (tally.get(kind) ?? 0) + 1)
  return redactionMarker(kind)
}

// ---------------------------------------------------------------------------------------------
// Private-key blocks. Scanned by hand: a BEGIN without END redacts to the end of the text (a read
// bounded to its tail may cut the block), an END without BEGIN redacts the base64 lines above it.

const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g
const PEM_END = /-----END (?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g
const PEM_BODY_LINE = /^[ \t]*[A-Za-z0-9+/=]{1,200}[ \t]*\r?$/

const redactOrphanEnds = (segment: string, tally: Tally): string => {
  let out = ""
  let pos = 0
  PEM_END.lastIndex = 0
  for (let m = PEM_END.exec(segment); m !== null; m = PEM_END.exec(segment)) {
    // Walk back over base64 body lines, never past what was already emitted.
    let start = m.index
    while (start > pos) {
      const lineEnd = start - 1 // the "\n" ending the previous line
      if (segment[lineEnd] !== "\n") break
      const lineStart = Math.max(pos, segment.lastIndexOf("\n", lineEnd - 1) + 1)
      if (lineEnd - lineStart > 256) break
      if (!PEM_BODY_LINE.test(segment.slice(lineStart, lineEnd))) break
      start = lineStart
    }
    out += segment.slice(pos, start) + note(tally, "private_key")
    pos = m.index + m[0].length
  }
  return out + segment.slice(pos)
}

const redactPem = (text: string, tally: Tally): string => {
  if (!text.includes("PRIVATE KEY")) return text
  let out = ""
  let pos = 0
  PEM_BEGIN.lastIndex = 0
  for (let m = PEM_BEGIN.exec(text); m !== null; m = PEM_BEGIN.exec(text)) {
    out += redactOrphanEnds(text.slice(pos, m.index), tally) + note(tally, "private_key")
    PEM_END.lastIndex = m.index + m[0].length
    const end = PEM_END.exec(text)
    if (end === null) return out
    pos = end.index + end[0].length
    PEM_BEGIN.lastIndex = pos
  }
  return out + redactOrphanEnds(text.slice(pos), tally)
}

// ---------------------------------------------------------------------------------------------
// Whole-token rules: the match is the secret.

interface TokenRule {
  readonly kind: string
  readonly pattern: RegExp
  /** Extra check on the match, to keep prose such as "sk-learn-..." intact. */
  readonly accept?: (match: string) => boolean
}

const mixed = (s: string) => /[0-9]/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s)

const TOKEN_RULES: ReadonlyArray<TokenRule> = [
  {
    kind: "aws_access_key",
    pattern:
      /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])/g
  },
  { kind: "github_token", pattern: /(?<![A-Za-z0-9_])(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}/g },
  { kind: "github_token", pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}/g },
  { kind: "gitlab_token", pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/g },
  { kind: "slack_token", pattern: /(?<![A-Za-z0-9_-])xox[abprs]-[A-Za-z0-9-]{10,}/g },
  {
    kind: "slack_webhook",
    pattern: /https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{8,}/g
  },
  { kind: "anthropic_key", pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  {
    kind: "openai_key",
    pattern: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
    accept: mixed
  },
  { kind: "stripe_key", pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: "google_api_key", pattern: /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g },
  { kind: "npm_token", pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g },
  { kind: "jwt", pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g }
]

const applyTokenRule = (text: string, rule: TokenRule, tally: Tally): string =>
  text.replace(rule.pattern, (match) =>
    rule.accept === undefined || rule.accept(match) ? note(tally, rule.kind) : match
  )

// ---------------------------------------------------------------------------------------------
// Credentials that follow a label: the label stays, the value goes.

/** `scheme://user:password@` — the password goes, the user stays. */
const URL_CREDENTIALS =
  /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,20}:\/\/[^\s:/?#@"'<>]{0,256}:)([^\s/?#@"'<>]{1,256})@/g

/** `Authorization: Bearer x`, `Authorization: Basic x`, `Authorization: token x`. */
const AUTHORIZATION =
  /(?<![A-Za-z0-9_-])((?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:bearer|basic|token|digest)[ \t]+)?)([^\s"',;]+)/gi

/** A bare `bearer <token>` (curl -H, logs). */
const BEARER = /(?<![A-Za-z0-9_-])(bearer[ \t]+)([A-Za-z0-9._~+/=-]{8,})/gi

/**
 * The label of `key=value`, `key: value`, `"key": "value"`, `export KEY=value`, `key := value`,
 * `key => value`. Whether the key names a secret is decided by `secretKind`; only then is the value
 * (read by `VALUE` right after the label) consumed, so a harmless label never swallows the next one.
 */
const LABEL = /(?<![A-Za-z0-9_.])([A-Za-z_][A-Za-z0-9_.-]{0,63})["']?[ \t]*(?::=|=>|[:=])[ \t]*/g
const VALUE = /"[^"\n]*"?|'[^'\n]*'?|[^\s"'`&;,]+/y

const SECRET_KEYS: ReadonlyArray<readonly [RegExp, string]> = [
  [/secret_?access_?key$/i, "aws_secret_access_key"],
  [/[_.-]pwd$|pass(?:word|wd|phrase)$/i, "password"],
  [/api[_-]?key$/i, "api_key"],
  [/(?:private|secret|access)[_-]?key$/i, "secret_key"],
  [/token$/i, "token"],
  [/secret$/i, "secret"]
]

const secretKind = (key: string): string | undefined => {
  for (const [pattern, kind] of SECRET_KEYS) if (pattern.test(key)) return kind
  return undefined
}

/** Values that are not secrets: empty, a `$VAR`/`${VAR}`/`$(...)` reference, a placeholder. */
const isPlaceholder = (value: string): boolean =>
  value.length === 0 ||
  value.startsWith(MARKER_PREFIX) ||
  value.startsWith("=") ||
  /^\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^}]*\}?|\(.*)$/.test(value) ||
  /^(?:null|none|nil|true|false|undefined)$/i.test(value) ||
  /^[*xX\u2022.]+$/.test(value) ||
  /^<[^>]*>$/.test(value)

const unquote = (
  value: string
): { readonly open: string; readonly inner: string; readonly close: string } => {
  const q = value[0]
  if (q !== '"' && q !== "'") return { open: "", inner: value, close: "" }
  const closed = value.length > 1 && value.endsWith(q)
  return { open: q, inner: value.slice(1, closed ? -1 : undefined), close: closed ? q : "" }
}

const redactLabelled = (text: string, tally: Tally): string =>
  text
    .replace(URL_CREDENTIALS, (match, head: string, password: string) =>
      isPlaceholder(password) ? match : `${head}${note(tally, "url_password")}@`
    )
    .replace(AUTHORIZATION, (match, head: string, value: string) =>
      isPlaceholder(value) || /^(?:bearer|basic|token|digest)$/i.test(value)
        ? match
        : head + note(tally, "authorization")
    )
    .replace(BEARER, (match, head: string, value: string) =>
      isPlaceholder(value) || !(/[0-9]/.test(value) || value.length >= 24)
        ? match
        : head + note(tally, "bearer_token")
    )

const redactAssignments = (text: string, tally: Tally): string => {
  let out = ""
  let pos = 0
  LABEL.lastIndex = 0
  for (let m = LABEL.exec(text); m !== null; m = LABEL.exec(text)) {
    const kind = secretKind(m[1]!)
    if (kind === undefined) continue
    VALUE.lastIndex = LABEL.lastIndex
    const value = VALUE.exec(text)
    if (value === null) continue
    const { open, inner, close } = unquote(value[0])
    if (isPlaceholder(inner)) continue
    out += text.slice(pos, LABEL.lastIndex) + open + note(tally, kind) + close
    pos = VALUE.lastIndex
    LABEL.lastIndex = pos
  }
  return out + text.slice(pos)
}

/** Replace every recognised secret in `text` with `[REDACTED:<kind>]`. Idempotent. */
export const redactSecrets = (text: string): Redacted => {
  const tally: Tally = new Map()
  let out = redactPem(text, tally)
  for (const rule of TOKEN_RULES) out = applyTokenRule(out, rule, tally)
  out = redactAssignments(redactLabelled(out, tally), tally)
  let count = 0
  for (const n of tally.values()) count += n
  return { text: out, count, kinds: [...tally.keys()].sort() }
}
