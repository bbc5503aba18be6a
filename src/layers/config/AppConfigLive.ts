/**
 * AppConfigLive — the only reader of the environment (HOME, IT2_SUITE, ITERM2_COOKIE/ITERM2_KEY
 * as Redacted, IT2_APP_PATH, TERMPILOT_OSASCRIPT, the iTerm2 timeouts, XDG dirs, TERMPILOT_CONFIG,
 * TERMPILOT_READ_ONLY, TERMPILOT_TOOL_DEADLINE_MS, TERMPILOT_BACKENDS, TMUX, TMUX_PANE, TMUX_TMPDIR,
 * TERMPILOT_TMUX_SOCKETS, TERMPILOT_TMUX, TERMPILOT_TMUX_TIMEOUT_MS, TERMPILOT_TMUX_HOSTS, TERMPILOT_SSH,
 * TERMPILOT_SSH_CONFIG, TERMPILOT_APPROVAL, TERMPILOT_APPROVAL_ASK_IN) and of the
 * optional JSON config file.
 */
import { homedir } from "node:os"
import { Config, Effect, Layer, Option, Redacted, Result, Schema, SchemaIssue } from "effect"
import {
  type ApprovalAskIn,
  type ApprovalPolicyName,
  ApprovalAskIn as AskIn,
  ApprovalPolicyName as PolicyName
} from "../../domain/ApprovalPolicy.js"
import { chooseBackends, ownTmuxPane, parseBackendsEnv, tmuxSockets } from "../../domain/BackendSelection.js"
import {
  MAX_TOOL_DEADLINE_MS,
  MIN_TOOL_DEADLINE_MS,
  resolveAuditPath,
  resolveConfigPaths
} from "../../domain/ConfigFile.js"
import { parseTmuxHosts, parseTmuxHostsEnv } from "../../domain/tmux/TmuxHost.js"
import { AppConfig } from "../../services/AppConfig.js"
import { iterm2SocketPath } from "../backends/iterm2/SocketPath.js"
import { loadConfigFile } from "./ConfigFileLive.js"

const nonBlank = (name: string) =>
  Config.option(Config.String(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

const nonBlankRedacted = (name: string) =>
  Config.option(Config.Redacted(name)).pipe(
    Config.map(Option.filter((value) => Redacted.value(value).trim() !== ""))
  )

/** An integer setting that must also pass `valid` (failing with `message`, as a ConfigError). */
const integerWhere = (name: string, message: string, valid: (n: number) => boolean) =>
  Config.schema(Schema.Int.check(Schema.makeFilter((n: number) => valid(n) || message)), name)

const positiveMs = (name: string, fallback: number) =>
  integerWhere(name, `${name} must be a positive number of milliseconds`, (n) => n > 0).pipe(
    Config.withDefault(fallback)
  )

/** A ConfigError for an environment value that was read but is not valid (`message` says why). */
const invalidData = (name: string, value: unknown, message: string): Config.ConfigError =>
  new Config.ConfigError(
    new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message }, value)))
  )

/** A setting that must be one of `choices`: undefined when unset or blank, else a ConfigError naming them. */
const choiceEnv = <A extends string>(name: string, choices: ReadonlyArray<A>) =>
  Effect.gen(function* () {
    const value = Option.getOrUndefined(yield* nonBlank(name))
    if (value === undefined) return undefined
    const chosen = choices.find((choice) => choice === value)
    if (chosen !== undefined) return chosen
    return yield* Effect.fail(invalidData(name, value, `${name} must be one of ${choices.join(", ")}`))
  })

export interface AppConfigOptions {
  /** `--read-only` from the command line: forces read-only mode whatever the file says. */
  readonly readOnly?: boolean
  /** `--approval` from the command line: wins over TERMPILOT_APPROVAL and the file's approval.policy. */
  readonly approval?: ApprovalPolicyName
  /** `--approval-ask-in`: wins over TERMPILOT_APPROVAL_ASK_IN and the file's approval.askIn. */
  readonly approvalAskIn?: ApprovalAskIn
}

/**
 * Reads the environment and the optional config file once, when the layer is built; fails with a
 * ConfigError on bad environment values and a ConfigFileError (naming the file) on a bad file.
 */
export const appConfigLayer = (options: AppConfigOptions = {}) =>
  Layer.effect(
    AppConfig,
    Effect.gen(function* () {
      const home = Option.getOrElse(yield* nonBlank("HOME"), () => homedir())
      const suite = yield* nonBlank("IT2_SUITE")
      const env = {
        HOME: home,
        XDG_CONFIG_HOME: Option.getOrUndefined(yield* nonBlank("XDG_CONFIG_HOME")),
        XDG_STATE_HOME: Option.getOrUndefined(yield* nonBlank("XDG_STATE_HOME")),
        TERMPILOT_CONFIG: Option.getOrUndefined(yield* nonBlank("TERMPILOT_CONFIG"))
      }
      const readOnlyEnv = yield* Config.Boolean("TERMPILOT_READ_ONLY").pipe(Config.withDefault(false))
      const loaded = yield* loadConfigFile(resolveConfigPaths(env, process.platform))
      const backendsRaw = Option.getOrUndefined(yield* nonBlank("TERMPILOT_BACKENDS"))
      const backendsEnv = parseBackendsEnv(backendsRaw)
      if (Result.isFailure(backendsEnv)) {
        return yield* Effect.fail(invalidData("TERMPILOT_BACKENDS", backendsRaw, backendsEnv.failure))
      }
      const tmuxEnv = {
        ...env,
        TMUX: Option.getOrUndefined(yield* nonBlank("TMUX")),
        TMUX_PANE: Option.getOrUndefined(yield* nonBlank("TMUX_PANE")),
        TMUX_TMPDIR: Option.getOrUndefined(yield* nonBlank("TMUX_TMPDIR")),
        TERMPILOT_TMUX_SOCKETS: Option.getOrUndefined(yield* nonBlank("TERMPILOT_TMUX_SOCKETS"))
      }
      const hostsRaw = Option.getOrUndefined(yield* nonBlank("TERMPILOT_TMUX_HOSTS"))
      const hostsEnv = parseTmuxHostsEnv(hostsRaw)
      if (Result.isFailure(hostsEnv)) {
        return yield* Effect.fail(invalidData("TERMPILOT_TMUX_HOSTS", hostsRaw, hostsEnv.failure))
      }
      const hostsFile = parseTmuxHosts(loaded.config.tmux.hosts, "tmux.hosts")
      // The file's entries were validated when it was decoded; this only keeps the types honest.
      const hosts = [...hostsEnv.success, ...(Result.isSuccess(hostsFile) ? hostsFile.success : [])].filter(
        (host, i, all) => all.findIndex((h) => h.spec === host.spec) === i
      )
      const uid = typeof process.getuid === "function" ? process.getuid() : 0
      const readOnly = loaded.config.readOnly || readOnlyEnv || options.readOnly === true
      const deadlineEnv = yield* Config.option(
        integerWhere(
          "TERMPILOT_TOOL_DEADLINE_MS",
          `TERMPILOT_TOOL_DEADLINE_MS must be a number of milliseconds from ${MIN_TOOL_DEADLINE_MS} to ${MAX_TOOL_DEADLINE_MS}`,
          (n) => n >= MIN_TOOL_DEADLINE_MS && n <= MAX_TOOL_DEADLINE_MS
        )
      )
      const toolDeadlineMs = Option.getOrElse(deadlineEnv, () => loaded.config.toolDeadlineMs)
      const approvalEnv = yield* choiceEnv("TERMPILOT_APPROVAL", PolicyName.literals)
      const policy = options.approval ?? approvalEnv ?? loaded.config.approval.policy
      const askInEnv = yield* choiceEnv("TERMPILOT_APPROVAL_ASK_IN", AskIn.literals)
      const askIn = options.approvalAskIn ?? askInEnv ?? loaded.config.approval.askIn
      const approval = { ...loaded.config.approval, policy, askIn }
      return {
        iterm2: {
          socketPath: iterm2SocketPath(home, Option.getOrUndefined(suite)),
          cookie: yield* nonBlankRedacted("ITERM2_COOKIE"),
          key: yield* nonBlankRedacted("ITERM2_KEY"),
          osascript: Option.getOrElse(yield* nonBlank("TERMPILOT_OSASCRIPT"), () => "/usr/bin/osascript"),
          appName: Option.getOrElse(yield* nonBlank("IT2_APP_PATH"), () => "iTerm2"),
          requestTimeoutMs: yield* positiveMs("TERMPILOT_ITERM2_REQUEST_TIMEOUT_MS", 10_000),
          connectTimeoutMs: yield* positiveMs("TERMPILOT_ITERM2_CONNECT_TIMEOUT_MS", 5_000)
        },
        tmux: {
          sockets: tmuxSockets(tmuxEnv, uid, loaded.config.tmux.sockets),
          tmuxPath: Option.getOrElse(yield* nonBlank("TERMPILOT_TMUX"), () => "tmux"),
          ownPane: ownTmuxPane(tmuxEnv),
          commandTimeoutMs: yield* positiveMs("TERMPILOT_TMUX_TIMEOUT_MS", 5_000),
          hosts,
          sshPath: Option.getOrElse(yield* nonBlank("TERMPILOT_SSH"), () => "ssh"),
          sshConfig: Option.getOrNull(yield* nonBlank("TERMPILOT_SSH_CONFIG"))
        },
        backends: chooseBackends(loaded.config.backends, backendsEnv.success),
        settings: { ...loaded.config, readOnly, toolDeadlineMs, approval },
        configPath: loaded.path,
        auditPath: resolveAuditPath(loaded.config.audit, env, process.platform)
      }
    })
  )

/** The configuration with nothing forced from the command line. Needs a FileSystem. */
export const AppConfigLive = appConfigLayer()
