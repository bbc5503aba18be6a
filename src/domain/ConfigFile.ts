/**
 * TermPilot's optional JSON config file: its Schema (unknown keys rejected, defaults filled in),
 * decoding with messages that name the key at fault, and where the file and the audit log live
 * (XDG on Linux, also ~/Library/Application Support/TermPilot on macOS). Pure: env comes in.
 */
import { Effect, Result, Schema, SchemaAST, SchemaIssue } from "effect"
import { ApprovalConfig, DEFAULT_APPROVAL_CONFIG } from "./ApprovalPolicy.js"
import { PolicyConfig } from "./SessionPolicy.js"
import { parseTmuxHost } from "./tmux/TmuxHost.js"

export const DEFAULT_AUDIT_MAX_BYTES = 10 * 1024 * 1024

/** The deadline of one tool call (for run_command: of its pre-send phase), in milliseconds. */
export const DEFAULT_TOOL_DEADLINE_MS = 15_000
export const MIN_TOOL_DEADLINE_MS = 100
export const MAX_TOOL_DEADLINE_MS = 300_000

export const ToolDeadlineMs = Schema.Int.check(
  Schema.isBetween(
    { minimum: MIN_TOOL_DEADLINE_MS, maximum: MAX_TOOL_DEADLINE_MS },
    {
      message: `must be an integer number of milliseconds from ${MIN_TOOL_DEADLINE_MS} to ${MAX_TOOL_DEADLINE_MS}`
    }
  )
)

const UserPath = Schema.String.check(
  Schema.makeFilter((s: string) => s.startsWith("/") || s.startsWith("~/"), {
    message: "must be an absolute path or start with ~/"
  })
)

/** An optional key whose decoded value is `value` when the key is absent. */
const withDefault = <S extends Schema.Constraint>(
  schema: S,
  value: S["Type"]
): Schema.withDecodingDefaultTypeKey<S> => Schema.withDecodingDefaultTypeKey<S>(Effect.succeed(value))(schema)

export const AuditSettings = Schema.Struct({
  enabled: withDefault(Schema.Boolean, true),
  path: Schema.optional(UserPath),
  maxBytes: withDefault(Schema.Int.check(Schema.isGreaterThanOrEqualTo(4096)), DEFAULT_AUDIT_MAX_BYTES)
})
export type AuditSettings = typeof AuditSettings.Type

export const RedactionSettings = Schema.Struct({
  enabled: withDefault(Schema.Boolean, true)
})

/** A terminal backend TermPilot can speak to. */
export const BackendName = Schema.Literals(["iterm2", "tmux"])
export type BackendName = typeof BackendName.Type

/**
 * Which backends are used: "auto" (iTerm2 when its API socket exists, tmux when a server answers,
 * both when both do), or an explicit non-empty list.
 */
export const BackendsSetting = Schema.Union([
  Schema.Literal("auto"),
  Schema.NonEmptyArray(BackendName).check(
    Schema.makeFilter((names: ReadonlyArray<BackendName>) => new Set(names).size === names.length, {
      message: "lists a backend twice"
    })
  )
])
export type BackendsSetting = typeof BackendsSetting.Type

export const TmuxFileSettings = Schema.Struct({
  /** More tmux server sockets to look at, besides the default server. */
  sockets: withDefault(Schema.Array(UserPath), []),
  /** Hosts whose tmux is reached over ssh: `[user@]host[:port]` (TmuxHost.ts). */
  hosts: withDefault(
    Schema.Array(
      Schema.String.check(
        Schema.makeFilter((text: string) => parseTmuxHost(text) !== null, {
          message:
            "must be [user@]host[:port] (letters, digits, '.', '_', '-'; e.g. build-box or deploy@db-1:2222)"
        })
      )
    ),
    []
  )
})

/** The whole file. Every key is optional; the decoded value has every default filled in. */
export const ConfigFileSchema = Schema.Struct({
  $schema: Schema.optional(Schema.String),
  readOnly: withDefault(Schema.Boolean, false),
  toolDeadlineMs: withDefault(ToolDeadlineMs, DEFAULT_TOOL_DEADLINE_MS),
  redaction: withDefault(RedactionSettings, { enabled: true }),
  audit: withDefault(AuditSettings, { enabled: true, maxBytes: DEFAULT_AUDIT_MAX_BYTES }),
  policy: withDefault(PolicyConfig, {}),
  approval: withDefault(ApprovalConfig, DEFAULT_APPROVAL_CONFIG),
  backends: withDefault(BackendsSetting, "auto"),
  tmux: withDefault(TmuxFileSettings, { sockets: [], hosts: [] })
})
export type TermPilotConfig = typeof ConfigFileSchema.Type

/** The configuration in force when there is no config file. */
export const DEFAULT_CONFIG: TermPilotConfig = Schema.decodeUnknownSync(ConfigFileSchema)({})

/** The config file could not be used; `path` says which file, `detail` what is wrong with it. */
export class ConfigFileError extends Schema.TaggedError<ConfigFileError>()("ConfigFileError", {
  path: Schema.String,
  reason: Schema.Literals(["unreadable", "invalid_json", "invalid"]),
  detail: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message() {
    return `config file ${this.path}: ${this.detail}`
  }
}

/** One thing wrong with the file: where (the key path) and what. */
interface Problem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
  /** For an unknown key: the keys allowed where it was found, quoted, comma-separated. */
  readonly allowed?: string
}

const libraryFormatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** Effect's own wording for one issue (with the rejected value, as decoding reports it). */
const libraryProblems = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): Array<Problem> =>
  libraryFormatter(issue).issues.map((entry) => ({
    path: [
      ...path,
      ...(entry.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))
    ],
    message: entry.message
  }))

/**
 * Every leaf of an issue tree with its key path. Unknown keys name the keys allowed where they
 * were found; an optional key whose value has the wrong type says what it must be, without
 * "| undefined" (a JSON file cannot hold undefined).
 */
const problems = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): Array<Problem> => {
  switch (issue._tag) {
    case "Pointer":
      return problems(issue.issue, [...path, ...issue.path])
    case "Encoding":
      return problems(issue.issue, path)
    case "Composite":
      return issue.issues.flatMap((inner) => problems(inner, path))
    case "AnyOf": {
      if (issue.issues.length > 0) return issue.issues.flatMap((inner) => problems(inner, path))
      const members = issue.ast.types.filter((member) => !SchemaAST.isUndefined(member))
      const [only] = members
      if (members.length === 1 && only !== undefined && members.length < issue.ast.types.length) {
        const wrongType = SchemaIssue.hasInput(issue)
          ? new SchemaIssue.InvalidType(only, issue.input, { reportInput: true })
          : new SchemaIssue.InvalidType(only)
        return libraryProblems(wrongType, path)
      }
      return libraryProblems(issue, path)
    }
    case "UnexpectedKey": {
      if (!SchemaAST.isObjects(issue.ast)) return libraryProblems(issue, path)
      const allowed = issue.ast.propertySignatures.map((signature) => JSON.stringify(String(signature.name)))
      return [{ path, message: "is unexpected", allowed: allowed.join(", ") }]
    }
    case "MissingKey":
      return [{ path, message: "is missing" }]
    default:
      return libraryProblems(issue, path)
  }
}

const describeProblem = (problem: Problem): string => {
  const where = problem.path.length === 0 ? "top level" : problem.path.map(String).join(".")
  if (problem.allowed !== undefined) return `unknown key "${where}" (allowed here: ${problem.allowed})`
  if (problem.path.length === 0) return "must be a JSON object"
  return `${where}: ${problem.message}`
}

/** Every problem of a failed decode, one clause each, repeats dropped, joined with "; ". */
const describeIssues = (issue: SchemaIssue.Issue): string =>
  [...new Set(problems(issue, []).map(describeProblem))].join("; ")

/** Parse and validate the text of a config file read from `path`. */
export const decodeConfigText = (
  text: string,
  path: string
): Result.Result<TermPilotConfig, ConfigFileError> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (cause) {
    const detail = `not valid JSON (${cause instanceof Error ? cause.message : String(cause)})`
    return Result.fail(new ConfigFileError({ path, reason: "invalid_json", detail }))
  }
  return Schema.decodeUnknownResult(ConfigFileSchema, {
    onExcessProperty: "error",
    errors: "all",
    reportInput: true
  })(json).pipe(
    Result.mapError(
      (error) => new ConfigFileError({ path, reason: "invalid", detail: describeIssues(error.issue) })
    )
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
