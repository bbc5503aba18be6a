/**
 * AppConfigLive reads the environment (through Effect's ConfigProvider) once: socket path from
 * HOME and IT2_SUITE, secrets as Redacted, defaults, and a ConfigError for a bad timeout.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { ConfigProvider, Effect, Layer, Option, Redacted, Result } from "effect"
import { describe, expect, it } from "vitest"
import { type AppConfigOptions, appConfigLayer } from "../../src/layers/config/AppConfigLive.js"
import { AppConfig } from "../../src/services/AppConfig.js"

const load = (env: Record<string, string>, options: AppConfigOptions = {}) =>
  Effect.runPromise(
    AppConfig.pipe(
      Effect.provide(appConfigLayer(options).pipe(Layer.provide(NodeServices.layer))),
      // Effect 3's ConfigProvider.fromMap kept empty strings as values; so does this provider, so the
      // blank-value handling below is AppConfigLive's own.
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnvRecord(env, { preserveEmptyStrings: true })
      ),
      Effect.result
    )
  )

const configHome = (config: unknown): string => {
  const dir = mkdtempSync(join(tmpdir(), "tp-config-"))
  mkdirSync(join(dir, "termpilot"))
  writeFileSync(
    join(dir, "termpilot", "config.json"),
    typeof config === "string" ? config : JSON.stringify(config)
  )
  return dir
}

describe("AppConfigLive", () => {
  it("tmux: sockets from $TMUX, the default, TERMPILOT_TMUX_SOCKETS and the file; own pane; backends", async () => {
    const xdg = configHome({ backends: ["tmux", "iterm2"], tmux: { sockets: ["~/extra.sock"] } })
    const uid = process.getuid?.() ?? 0
    const config = await load({
      HOME: "/home/ada",
      XDG_CONFIG_HOME: xdg,
      TMUX: "/tmp/inside.sock,77,1",
      TMUX_PANE: "%5",
      TMUX_TMPDIR: "/run/tp",
      TERMPILOT_TMUX_SOCKETS: "/srv/a.sock",
      TERMPILOT_TMUX: "/opt/bin/tmux"
    })
    if (Result.isFailure(config)) throw new Error(String(config.failure))
    expect(config.success.tmux).toEqual({
      sockets: ["/tmp/inside.sock", `/run/tp/tmux-${uid}/default`, "/srv/a.sock", "/home/ada/extra.sock"],
      tmuxPath: "/opt/bin/tmux",
      ownPane: { socket: "/tmp/inside.sock", pane: "%5" },
      commandTimeoutMs: 5000,
      hosts: [],
      sshPath: "ssh",
      sshConfig: null
    })
    expect(config.success.backends).toEqual({ mode: "explicit", enabled: ["tmux", "iterm2"] })
    const env = await load({ HOME: "/home/ada", XDG_CONFIG_HOME: xdg, TERMPILOT_BACKENDS: "auto" })
    if (Result.isFailure(env)) throw new Error(String(env.failure))
    expect(env.success.backends.mode).toBe("auto")
  })

  it("approval: the file's policy, TERMPILOT_APPROVAL over it, --approval over both; a bad value is a ConfigError", async () => {
    const xdg = configHome({ approval: { policy: "risky", timeoutSeconds: 30, riskyPatterns: ["^deploy"] } })
    const policyOf = async (env: Record<string, string>, options: AppConfigOptions = {}) => {
      const config = await load({ HOME: "/home/ada", XDG_CONFIG_HOME: xdg, ...env }, options)
      if (Result.isFailure(config)) throw new Error(String(config.failure))
      return config.success.settings.approval
    }
    expect(await policyOf({})).toEqual({
      policy: "risky",
      timeoutSeconds: 30,
      riskyPatterns: ["^deploy"],
      askIn: "auto",
      sendKeysWithoutApproval: false
    })
    expect((await policyOf({ TERMPILOT_APPROVAL: "always" })).policy).toBe("always")
    expect((await policyOf({ TERMPILOT_APPROVAL: "always" }, { approval: "never" })).policy).toBe("never")
    const bad = await load({ HOME: "/home/ada", XDG_CONFIG_HOME: xdg, TERMPILOT_APPROVAL: "sometimes" })
    expect(Result.isFailure(bad) && String(bad.failure)).toContain(
      "TERMPILOT_APPROVAL must be one of never, risky, always"
    )
  })

  it("approval.askIn: the file's, TERMPILOT_APPROVAL_ASK_IN over it, --approval-ask-in over both; a bad value is a ConfigError", async () => {
    const xdg = configHome({ approval: { askIn: "client" } })
    const askInOf = async (env: Record<string, string>, options: AppConfigOptions = {}) => {
      const config = await load({ HOME: "/home/ada", XDG_CONFIG_HOME: xdg, ...env }, options)
      if (Result.isFailure(config)) throw new Error(String(config.failure))
      return config.success.settings.approval.askIn
    }
    expect(await askInOf({})).toBe("client")
    expect(await askInOf({ TERMPILOT_APPROVAL_ASK_IN: "terminal" })).toBe("terminal")
    expect(await askInOf({ TERMPILOT_APPROVAL_ASK_IN: "terminal" }, { approvalAskIn: "auto" })).toBe("auto")
    const bad = await load({ HOME: "/home/ada", XDG_CONFIG_HOME: xdg, TERMPILOT_APPROVAL_ASK_IN: "pane" })
    expect(Result.isFailure(bad) && String(bad.failure)).toContain(
      "TERMPILOT_APPROVAL_ASK_IN must be one of client, terminal, auto"
    )
  })

  it("derives the socket path and applies defaults", async () => {
    const config = await load({ HOME: "/Users/ada" })
    if (Result.isFailure(config)) throw new Error(String(config.failure))
    expect(config.success.iterm2).toMatchObject({
      socketPath: "/Users/ada/Library/Application Support/iTerm2/private/socket",
      osascript: "/usr/bin/osascript",
      appName: "iTerm2"
    })
    expect(Option.isNone(config.success.iterm2.cookie)).toBe(true)
    expect(config.success.iterm2.requestTimeoutMs).toBeGreaterThan(0)
    expect(config.success.iterm2.connectTimeoutMs).toBeGreaterThan(0)
  })

  it("honours IT2_SUITE, IT2_APP_PATH, TERMPILOT_OSASCRIPT and keeps the cookie and key redacted", async () => {
    const config = await load({
      HOME: "/Users/ada",
      IT2_SUITE: "iTerm2-Nightly",
      IT2_APP_PATH: "/Applications/iTerm Nightly.app",
      TERMPILOT_OSASCRIPT: "/opt/bin/osascript",
      ITERM2_COOKIE: "cookie-value-123",
      ITERM2_KEY: "key-value-456",
      TERMPILOT_ITERM2_REQUEST_TIMEOUT_MS: "2500"
    })
    if (Result.isFailure(config)) throw new Error(String(config.failure))
    const { iterm2 } = config.success
    expect(iterm2.socketPath).toBe("/Users/ada/Library/Application Support/iTerm2-Nightly/private/socket")
    expect(iterm2.appName).toBe("/Applications/iTerm Nightly.app")
    expect(iterm2.osascript).toBe("/opt/bin/osascript")
    expect(iterm2.requestTimeoutMs).toBe(2500)
    expect(Option.map(iterm2.cookie, Redacted.value)).toEqual(Option.some("cookie-value-123"))
    expect(Option.map(iterm2.key, Redacted.value)).toEqual(Option.some("key-value-456"))
    expect(JSON.stringify(iterm2)).not.toContain("cookie-value-123")
    expect(String(iterm2.key)).not.toContain("key-value-456")
  })

  it("treats blank values as unset", async () => {
    const config = await load({ HOME: "/h", IT2_SUITE: " ", ITERM2_COOKIE: "", TERMPILOT_OSASCRIPT: "" })
    if (Result.isFailure(config)) throw new Error(String(config.failure))
    expect(config.success.iterm2.socketPath).toBe("/h/Library/Application Support/iTerm2/private/socket")
    expect(Option.isNone(config.success.iterm2.cookie)).toBe(true)
    expect(config.success.iterm2.osascript).toBe("/usr/bin/osascript")
  })

  it("refuses a timeout that is not a positive integer", async () => {
    for (const value of ["0", "-5", "soon"]) {
      const config = await load({ HOME: "/h", TERMPILOT_ITERM2_CONNECT_TIMEOUT_MS: value })
      expect(Result.isFailure(config), value).toBe(true)
    }
  })

  it("uses the defaults when there is no config file: secure settings, audit under XDG state", async () => {
    const config = await load({ HOME: "/nonexistent-home", XDG_STATE_HOME: "/state" })
    if (Result.isFailure(config)) throw new Error(String(config.failure))
    expect(config.success.configPath).toBeNull()
    expect(config.success.settings.readOnly).toBe(false)
    expect(config.success.settings.redaction.enabled).toBe(true)
    expect(config.success.settings.audit.enabled).toBe(true)
    expect(config.success.auditPath).toBe("/state/termpilot/audit.jsonl")
  })

  it("reads the config file from XDG_CONFIG_HOME, and read-only from the file, the env or the flag", async () => {
    const fromFile = await load({
      HOME: "/h",
      XDG_CONFIG_HOME: configHome({ readOnly: true, redaction: { enabled: false } })
    })
    if (Result.isFailure(fromFile)) throw new Error(String(fromFile.failure))
    expect(fromFile.success.configPath).toMatch(/termpilot\/config\.json$/)
    expect(fromFile.success.settings.readOnly).toBe(true)
    expect(fromFile.success.settings.redaction.enabled).toBe(false)

    const plain = configHome({})
    const fromEnv = await load({ HOME: "/h", XDG_CONFIG_HOME: plain, TERMPILOT_READ_ONLY: "true" })
    const fromFlag = await load({ HOME: "/h", XDG_CONFIG_HOME: plain }, { readOnly: true })
    const neither = await load({ HOME: "/h", XDG_CONFIG_HOME: plain })
    expect(Result.map(fromEnv, (c) => c.settings.readOnly)).toEqual(Result.succeed(true))
    expect(Result.map(fromFlag, (c) => c.settings.readOnly)).toEqual(Result.succeed(true))
    expect(Result.map(neither, (c) => c.settings.readOnly)).toEqual(Result.succeed(false))
  })

  it("fails, naming the file and the key, on an invalid config file", async () => {
    const config = await load({ HOME: "/h", XDG_CONFIG_HOME: configHome({ readonly: true }) })
    expect(Result.isFailure(config)).toBe(true)
    if (Result.isFailure(config)) {
      expect(String(config.failure.message)).toContain("termpilot/config.json")
      expect(String(config.failure.message)).toContain("readonly")
    }
  })

  it("takes the tool deadline from the file or TERMPILOT_TOOL_DEADLINE_MS (which wins); 15 s otherwise", async () => {
    const none = await load({ HOME: "/nonexistent-home" })
    expect(Result.map(none, (c) => c.settings.toolDeadlineMs)).toEqual(Result.succeed(15_000))
    const file = configHome({ toolDeadlineMs: 4_000 })
    const fromFile = await load({ HOME: "/h", XDG_CONFIG_HOME: file })
    expect(Result.map(fromFile, (c) => c.settings.toolDeadlineMs)).toEqual(Result.succeed(4_000))
    const fromEnv = await load({ HOME: "/h", XDG_CONFIG_HOME: file, TERMPILOT_TOOL_DEADLINE_MS: "2500" })
    expect(Result.map(fromEnv, (c) => c.settings.toolDeadlineMs)).toEqual(Result.succeed(2_500))
  })

  it("refuses a tool deadline outside 100 ms … 300 s, in the env and in the file", async () => {
    for (const value of ["0", "99", "300001", "soon", "1.5"]) {
      const config = await load({ HOME: "/nonexistent-home", TERMPILOT_TOOL_DEADLINE_MS: value })
      expect(Result.isFailure(config), value).toBe(true)
    }
    const bad = await load({ HOME: "/h", XDG_CONFIG_HOME: configHome({ toolDeadlineMs: 50 }) })
    expect(Result.isFailure(bad)).toBe(true)
    if (Result.isFailure(bad)) expect(String(bad.failure.message)).toContain("toolDeadlineMs")
  })

  it("tmux hosts: TERMPILOT_TMUX_HOSTS then the file's tmux.hosts, strict; ssh and its config from the env", async () => {
    const xdg = configHome({ tmux: { hosts: ["build-box", "ops@db-2:2200"] } })
    const config = await load({
      HOME: "/h",
      XDG_CONFIG_HOME: xdg,
      TERMPILOT_TMUX_HOSTS: "deploy@db-1:2222, build-box",
      TERMPILOT_SSH: "/opt/bin/ssh",
      TERMPILOT_SSH_CONFIG: "/h/.ssh/termpilot_config"
    })
    if (Result.isFailure(config)) throw new Error(String(config.failure))
    expect(config.success.tmux.hosts?.map((h) => h.spec)).toEqual([
      "deploy@db-1:2222",
      "build-box",
      "ops@db-2:2200"
    ])
    expect(config.success.tmux.hosts?.[0]).toEqual({
      user: "deploy",
      host: "db-1",
      port: 2222,
      spec: "deploy@db-1:2222"
    })
    expect(config.success.tmux.sshPath).toBe("/opt/bin/ssh")
    expect(config.success.tmux.sshConfig).toBe("/h/.ssh/termpilot_config")
    for (const value of ["-oProxyCommand=x", "a b", "h:99999", "build-box,,x", "ssh://h"]) {
      const bad = await load({ HOME: "/nonexistent-home", TERMPILOT_TMUX_HOSTS: value })
      expect(Result.isFailure(bad), value).toBe(true)
      if (Result.isFailure(bad)) expect(String(bad.failure), value).toContain("TERMPILOT_TMUX_HOSTS")
    }
    const badFile = await load({ HOME: "/h", XDG_CONFIG_HOME: configHome({ tmux: { hosts: ["-oX=y"] } }) })
    expect(Result.isFailure(badFile)).toBe(true)
    if (Result.isFailure(badFile)) expect(String(badFile.failure.message)).toContain("tmux.hosts")
  })
})
