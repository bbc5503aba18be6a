/**
 * Which sessions the model may SEE and which it may ACT in, from the config file's `policy`:
 * allow/deny lists of `*` globs over the iTerm2 profile name, the tmux session name and a user-set
 * tag (iTerm2 `user.termpilot_tag`, tmux `@termpilot_tag`). Deny wins; acting requires seeing.
 */
import { Schema } from "effect"

/** Globs per attribute; `*` matches any run of characters (also none), all else is literal. */
export const SessionMatchers = Schema.Struct({
  profiles: Schema.optional(Schema.Array(Schema.NonEmptyString)),
  tmuxSessions: Schema.optional(Schema.Array(Schema.NonEmptyString)),
  tags: Schema.optional(Schema.Array(Schema.NonEmptyString))
})
export type SessionMatchers = typeof SessionMatchers.Type

/**
 * `deny`: a session matching any glob is excluded. `allow`: when present, only sessions matching
 * one of its globs are included (`allow: {}` therefore includes nothing).
 */
export const SessionRules = Schema.Struct({
  allow: Schema.optional(SessionMatchers),
  deny: Schema.optional(SessionMatchers)
})
export type SessionRules = typeof SessionRules.Type

export const PolicyConfig = Schema.Struct({
  visible: Schema.optional(SessionRules),
  actionable: Schema.optional(SessionRules)
})
export type PolicyConfig = typeof PolicyConfig.Type

/** What the policy looks at; null when the backend does not know the value. */
export interface PolicySubject {
  readonly backend: "iterm2" | "tmux"
  readonly profileName: string | null
  readonly tmuxSession: string | null
  readonly tag: string | null
}

export type PolicyVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: string }

export interface SessionPolicy {
  readonly isVisible: (session: PolicySubject) => boolean
  readonly isActionable: (session: PolicySubject) => boolean
  /** As `isVisible`, with a reason a person can act on when the answer is no. */
  readonly checkVisible: (session: PolicySubject) => PolicyVerdict
  /** As `isActionable`, with a reason a person can act on when the answer is no. */
  readonly checkActionable: (session: PolicySubject) => PolicyVerdict
}

/** Whether `value` matches `pattern`, where `*` matches any run of characters. Case-sensitive. */
export const globMatch = (pattern: string, value: string): boolean => {
  let p = 0
  let v = 0
  let star = -1
  let resume = 0
  while (v < value.length) {
    if (p < pattern.length && pattern[p] === "*") {
      star = p++
      resume = v
    } else if (p < pattern.length && pattern[p] === value[v]) {
      p++
      v++
    } else if (star >= 0) {
      p = star + 1
      v = ++resume
    } else {
      return false
    }
  }
  while (p < pattern.length && pattern[p] === "*") p++
  return p === pattern.length
}

const ATTRIBUTES = [
  ["profiles", "profileName", "profile"],
  ["tmuxSessions", "tmuxSession", "tmux session"],
  ["tags", "tag", "tag"]
] as const

/** The first glob of `matchers` the session matches, described; a missing value matches nothing. */
export const firstMatch = (matchers: SessionMatchers, session: PolicySubject): string | undefined => {
  for (const [list, field, label] of ATTRIBUTES) {
    const value = session[field]
    if (value === null) continue
    const hit = matchers[list]?.find((glob) => globMatch(glob, value))
    if (hit !== undefined) return `${label} ${JSON.stringify(value)} matches ${JSON.stringify(hit)}`
  }
  return undefined
}

const ALLOWED: PolicyVerdict = { allowed: true }

const check = (rules: SessionRules | undefined, name: string, session: PolicySubject): PolicyVerdict => {
  if (rules === undefined) return ALLOWED
  if (rules.deny !== undefined) {
    const denied = firstMatch(rules.deny, session)
    if (denied !== undefined) return { allowed: false, reason: `excluded by policy.${name}.deny (${denied})` }
  }
  if (rules.allow !== undefined && firstMatch(rules.allow, session) === undefined) {
    return { allowed: false, reason: `not included by policy.${name}.allow` }
  }
  return ALLOWED
}

/** The policy for `config`; with no config everything is visible and actionable. */
export const makeSessionPolicy = (
  config: PolicyConfig | undefined,
  options?: { readonly readOnly?: boolean }
): SessionPolicy => {
  const checkVisible = (session: PolicySubject) => check(config?.visible, "visible", session)
  const checkActionable = (session: PolicySubject): PolicyVerdict => {
    const visible = checkVisible(session)
    if (!visible.allowed) return visible
    if (options?.readOnly === true)
      return { allowed: false, reason: "TermPilot is in read-only mode (readOnly)" }
    return check(config?.actionable, "actionable", session)
  }
  return {
    isVisible: (session) => checkVisible(session).allowed,
    isActionable: (session) => checkActionable(session).allowed,
    checkVisible,
    checkActionable
  }
}
