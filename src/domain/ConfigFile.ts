/**
 * TermPilot's optional JSON config file: its Schema (unknown keys rejected, defaults filled in),
 * decoding with messages that name the key at fault, and where the file and the audit log live
 * (XDG on Linux, also ~/Library/Application Support/TermPilot on macOS). Pure: env comes in.
 */
import { Either, ParseResult, Schema } from "effect"
import { ApprovalConfig, DEFAULT_APPROVAL_CONFIG } from "./ApprovalPolicy.js"
import { PolicyConfig } from "./SessionPolicy.js"
import { parseTmuxHost } from "./tmux/TmuxHost.js"

export const DEFAULT_AUDIT_MAX_BYTES = 10 * 1024 * 1024

/** The deadline of one tool call (for run_command: of its pre-send phase), in milliseconds. */
export const DEFAULT_TOOL_DEADLINE_MS = 15_000
export const MIN_TOOL_DEADLINE_MS = 100
export const MAX_TOOL_DEADLINE_MS = 300_000

export const ToolDeadlineMs = Schema.Int.pipe(
  Schema.between(MIN_TOOL_DEADLINE_MS, MAX_TOOL_DEADLINE_MS, {
    message: () =>
      `must be an integer number of milliseconds from ${MIN_TOOL_DEADLINE_MS} to ${MAX_TOOL_DEADLINE_MS}`
  })
)

const UserPath = Schema.String.pipe(
  Schema.filter((s) => s.startsWith("/") || s.startsWith("~/"), {
    message: () => "must be an absolute path or start with ~/"
  })
)

export const AuditSettings = Schema.Struct({
  enabled: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  path: Schema.optional(UserPath),
  maxBytes: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(4096)), {
    default: () => DEFAULT_AUDIT_MAX_BYTES
  })
})
export type AuditSettings = typeof AuditSettings.Type

export const RedactionSettings = Schema.Struct({
  enabled: Schema.optionalWith(Schema.Boolean, { default: () => true })
})

/** A terminal backend TermPilot can speak to. */
export const BackendName = Schema.Literal("iterm2", "tmux")
export type BackendName = typeof BackendName.Type

/**
 * Which backends are used: "auto" (iTerm2 when its API socket exists, tmux when a server answers,
 * both when both do), or an explicit non-empty list.
 */
export const BackendsSetting = Schema.Union(
  Schema.Literal("auto"),
  Schema.NonEmptyArray(BackendName).pipe(
    Schema.filter((names) => new Set(names).size === names.length, { message: () => "lists a backend twice" })
  )
)
export type BackendsSetting = typeof BackendsSetting.Type

export const TmuxFileSettings = Schema.Struct({
  /** More tmux server sockets to look at, besides the default server. */
  sockets: Schema.optionalWith(Schema.Array(UserPath), { default: () => [] }),
  /** Hosts whose tmux is reached over ssh: `[user@]host[:port]` (TmuxHost.ts). */
  hosts: Schema.optionalWith(
    Schema.Array(
      Schema.String.pipe(
        Schema.filter((text) => parseTmuxHost(text) !== null, {
          message: () =>
            "must be [user@]host[:port] (letters, digits, '.', '_', '-'; e.g. build-box or deploy@db-1:2222)"
        })
      )
    ),
    { default: () => [] }
  )
})

/** The whole file. Every key is optional; the decoded value has every default filled in. */
export const ConfigFileSchema = Schema.Struct({
  $schema: Schema.optional(Schema.String),
  readOnly: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  toolDeadlineMs: Schema.optionalWith(ToolDeadlineMs, { default: () => DEFAULT_TOOL_DEADLINE_MS }),
  redaction: Schema.optionalWith(RedactionSettings, { default: () => ({ enabled: true }) }),
  audit: Schema.optionalWith(AuditSettings, {
    default: () => ({ enabled: true, maxBytes: DEFAULT_AUDIT_MAX_BYTES })
  }),
  policy: Schema.optionalWith(PolicyConfig, { default: () => ({}) }),
  approval: Schema.optionalWith(ApprovalConfig, { default: () => DEFAULT_APPROVAL_CONFIG }),
  backends: Schema.optionalWith(BackendsSetting, { default: () => "auto" as const }),
  tmux: Schema.optionalWith(TmuxFileSettings, { default: () => ({ sockets: [], hosts: [] }) })
})
export type TermPilotConfig = typeof ConfigFileSchema.Type

/** The configuration in force when there is no config file. */
export const DEFAULT_CONFIG: TermPilotConfig = Schema.decodeUnknownSync(ConfigFileSchema)({})

/** The config file could not be used; `path` says which file, `detail` what is wrong with it. */
export class ConfigFileError extends Schema.TaggedError<ConfigFileError>()("ConfigFileError", {
  path: Schema.String,
  reason: Schema.Literal("unreadable", "invalid_json", "invalid"),
  detail: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  override get message() {
    return `config file ${this.path}: ${this.detail}`
  }
}

const describeIssue = (issue: ParseResult.ArrayFormatterIssue): string => {
  const where = issue.path.length === 0 ? "top level" : issue.path.map(String).join(".")
  if (issue._tag === "Unexpected") {
    const allowed = issue.message.replace(/^is unexpected, expected: /, "")
    return `unknown key "${where}" (allowed here: ${allowed.replace(/ \| /g, ", ")})`
  }
  if (issue.path.length === 0) return "must be a JSON object"
  return `${where}: ${issue.message}`
}

/** Parse and validate the text of a config file read from `path`. */
export const decodeConfigText = (
  text: string,
  path: string
): Either.Either<TermPilotConfig, ConfigFileError> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (cause) {
    const detail = `not valid JSON (${cause instanceof Error ? cause.message : String(cause)})`
    return Either.left(new ConfigFileError({ path, reason: "invalid_json", detail }))
  }
  return Schema.decodeUnknownEither(ConfigFileSchema, { onExcessProperty: "error", errors: "all" })(
    json
  ).pipe(
    Either.mapLeft((error) => {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
      // An optional key that fails also reports "Expected undefined"; that line only adds noise.
      const useful = issues.filter((i) => !i.message.startsWith("Expected undefined"))
      const lines = [...new Set((useful.length > 0 ? useful : issues).map(describeIssue))]
      return new ConfigFileError({ path, reason: "invalid", detail: lines.join("; ") })
    })
  )
}

export type Env = Readonly<Record<string, string | undefined>>

const absolute = (value: string | undefined): string | undefined =>
  value?.startsWith("/") ? value.replace(/\/+$/, "") || "/" : undefined

const home = (env: Env) => absolute(env.HOME)

/** Replace a leading `~/` with `$HOME/`; other paths are returned as they are. */
export const expandHome = (path: string, env: Env): string => {
  const h = home(env)
  return path.startsWith("~/") && h !== undefined ? `${h}/${path.slice(2)}` : path
}

/**
 * Where to look for the config file, in order; the first that exists is used. `TERMPILOT_CONFIG`
 * names one file explicitly; otherwise `$XDG_CONFIG_HOME/termpilot/config.json` (or
 * `~/.config/termpilot/config.json`), then on macOS `~/Library/Application Support/TermPilot/config.json`.
 */
export const resolveConfigPaths = (env: Env, platform: string): ReadonlyArray<string> => {
  const explicit = env.TERMPILOT_CONFIG
  if (explicit !== undefined && explicit.trim() !== "") return [expandHome(explicit, env)]
  const h = home(env)
  const xdg = absolute(env.XDG_CONFIG_HOME) ?? (h === undefined ? undefined : `${h}/.config`)
  const paths: Array<string> = []
  if (xdg !== undefined) paths.push(`${xdg}/termpilot/config.json`)
  if (platform === "darwin" && h !== undefined)
    paths.push(`${h}/Library/Application Support/TermPilot/config.json`)
  return paths
}

/**
 * The default audit log: `$XDG_STATE_HOME/termpilot/audit.jsonl` when set, else on macOS
 * `~/Library/Application Support/TermPilot/audit.jsonl`, else `~/.local/state/termpilot/audit.jsonl`.
 * Undefined when neither XDG_STATE_HOME nor HOME is an absolute path.
 */
export const defaultAuditPath = (env: Env, platform: string): string | undefined => {
  const xdg = absolute(env.XDG_STATE_HOME)
  if (xdg !== undefined) return `${xdg}/termpilot/audit.jsonl`
  const h = home(env)
  if (h === undefined) return undefined
  return platform === "darwin"
    ? `${h}/Library/Application Support/TermPilot/audit.jsonl`
    : `${h}/.local/state/termpilot/audit.jsonl`
}

/**
 * The audit log path in force: the configured one (with `~/` expanded) or the default; undefined
 * when no absolute path can be formed (no HOME).
 */
export const resolveAuditPath = (audit: AuditSettings, env: Env, platform: string): string | undefined => {
  const path = audit.path !== undefined ? expandHome(audit.path, env) : defaultAuditPath(env, platform)
  return path?.startsWith("/") ? path : undefined
}
