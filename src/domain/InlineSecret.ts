/**
 * The inline-secret check tunnel-client applies to `--mcp-command` (ported rule for rule from its
 * `RejectInlineSecretMaterial`), so that setup can refuse such a command itself, with a clear
 * message, before anything runs. Returns which rule matched, never the matched text.
 */
import { Option } from "effect"

const SECRET_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/sk-[A-Za-z0-9_-]{12,}/, "an `sk-…` key"],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{12,}/i, "a Bearer token"],
  [/\bAuthorization\s*:/i, "an Authorization header"],
  [
    /(api[_-]?key|access[_-]?token|refresh[_-]?token|id[_-]?token|password|secret)=\S+/i,
    "a `name=value` secret"
  ],
  [/\b(OPENAI_ADMIN_KEY|OPENAI_API_KEY|CONTROL_PLANE_API_KEY)=/i, "a key variable assignment"],
  [/:\/\/[^/\s:@]+:[^/\s:@]+@/, "a URL with user:password@"]
]

const SECRET_FLAG =
  /^-{1,2}[a-z0-9_-]*(api[_-]?key|access[_-]?token|refresh[_-]?token|id[_-]?token|password|secret)[a-z0-9_-]*$/i
const SECRET_REFERENCE =
  /^(env:[A-Za-z_][A-Za-z0-9_]*|file:.+|\$[A-Za-z_][A-Za-z0-9_]*|\$\{[A-Za-z_][A-Za-z0-9_]*\})$/

/** Why tunnel-client would refuse `command` as carrying inline secret material, if it would. */
export const inlineSecretFinding = (command: string): Option.Option<string> => {
  for (const [pattern, what] of SECRET_PATTERNS) {
    if (pattern.test(command)) return Option.some(what)
  }
  const tokens = command.split(/\s+/).filter((token) => token !== "")
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    const next = tokens[i + 1] ?? ""
    if (!SECRET_FLAG.test(token) || token.includes("=")) continue
    if (next !== "" && !next.startsWith("-") && !SECRET_REFERENCE.test(next)) {
      return Option.some(`a secret-named flag (${token}) followed by a literal value`)
    }
  }
  return Option.none()
}
