/**
 * AppConfigLive reads the environment (through Effect's ConfigProvider) once: socket path from
 * HOME and IT2_SUITE, secrets as Redacted, defaults, and a ConfigError for a bad timeout.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeContext } from "@effect/platform-node"
import { ConfigProvider, Effect, Either, Layer, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { type AppConfigOptions, appConfigLayer } from "../../src/layers/AppConfigLive.js"
import { AppConfig } from "../../src/services/AppConfig.js"

const load = (env: Record<string, string>, options: AppConfigOptions = {}) =>
  Effect.runPromise(
    AppConfig.pipe(
      Effect.provide(appConfigLayer(options).pipe(Layer.provide(NodeContext.layer))),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
      Effect.either
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
    if (Either.isLeft(config)) throw new Error(String(config.left))
    expect(config.right.tmux).toEqual({
      sockets: ["/tmp/inside.sock", `/run/tp/tmux-${uid}/default`, "/srv/a.sock", "/home/ada/extra.sock"],
      tmuxPath: "/opt/bin/tmux",
      ownPane: { socket: "/tmp/inside.sock", pane: "%5" },
      commandTimeoutMs: 5000,
      hosts: [],
      sshPath: "ssh",
      sshConfig: null
    })
    expect(config.right.backends).toEqual({ mode: "explicit", enabled: ["tmux", "iterm2"] })
    const env = await load({ HOME: "/home/ada", XDG_CONFIG_HOME: xdg, TERMPILOT_BACKENDS: "auto" })
    if (Either.isLeft(env)) throw new Error(String(env.left))
    expect(env.right.backends.mode).toBe("auto")
  })

  it("approval: the file's policy, TERMPILOT_APPROVAL over it, --approval over both; a bad value is a ConfigError", async () => {
    const xdg = configHome({ approval: { policy: "risky", timeoutSeconds: 30, riskyPatterns: ["^deploy"] } })
    const policyOf = async (env: Record<string, string>, options: AppConfigOptions = {}) => {
      const config = await load({ HOME: "/home/ada", XDG_CONFIG_HOME: xdg, ...env }, options)
      if (Either.isLeft(config)) throw new Error(String(config.left))
      return config.right.settings.approval
    }
    expect(await policyOf({})).toEqual({
      policy: "risky",
      timeoutSeconds: 30,
      riskyPatterns: ["^deploy"],
      sendKeysWithoutApproval: false
    })
    expect((await policyOf({ TERMPILOT_APPROVAL: "always" })).policy).toBe("always")
    expect((await policyOf({ TERMPILOT_APPROVAL: "always" }, { approval: "never" })).policy).toBe("never")
    const bad = await load({ HOME: "/home/ada", XDG_CONFIG_HOME: xdg, TERMPILOT_APPROVAL: "sometimes" })
    expect(Either.isLeft(bad) && String(bad.left)).toContain(
      "TERMPILOT_APPROVAL must be one of never, risky, always"
    )
  })

  it("derives the socket path and applies defaults", async () => {
    const config = await load({ HOME: "/Users/ada" })
    if (Either.isLeft(config)) throw new Error(String(config.left))
    expect(config.right.iterm2).toMatchObject({
      socketPath: "/Users/ada/Library/Application Support/iTerm2/private/socket",
      osascript: "/usr/bin/osascript",
      appName: "iTerm2"
    })
    expect(Option.isNone(config.right.iterm2.cookie)).toBe(true)
    expect(config.right.iterm2.requestTimeoutMs).toBeGreaterThan(0)
    expect(config.right.iterm2.connectTimeoutMs).toBeGreaterThan(0)
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
    if (Either.isLeft(config)) throw new Error(String(config.left))
    const { iterm2 } = config.right
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
    if (Either.isLeft(config)) throw new Error(String(config.left))
    expect(config.right.iterm2.socketPath).toBe("/h/Library/Application Support/iTerm2/private/socket")
    expect(Option.isNone(config.right.iterm2.cookie)).toBe(true)
    expect(config.right.iterm2.osascript).toBe("/usr/bin/osascript")
  })

  it("refuses a timeout that is not a positive integer", async () => {
    for (const value of ["0", "-5", "soon"]) {
      const config = await load({ HOME: "/h", TERMPILOT_ITERM2_CONNECT_TIMEOUT_MS: value })
      expect(Either.isLeft(config), value).toBe(true)
    }
  })

  it("uses the defaults when there is no config file: secure settings, audit under XDG state", async () => {
    const config = await load({ HOME: "/nonexistent-home", XDG_STATE_HOME: "/state" })
    if (Either.isLeft(config)) throw new Error(String(config.left))
    expect(config.right.configPath).toBeNull()
    expect(config.right.settings.readOnly).toBe(false)
    expect(config.right.settings.redaction.enabled).toBe(true)
    expect(config.right.settings.audit.enabled).toBe(true)
    expect(config.right.auditPath).toBe("/state/termpilot/audit.jsonl")
  })

  it("reads the config file from XDG_CONFIG_HOME, and read-only from the file, the env or the flag", async () => {
    const fromFile = await load({
      HOME: "/h",
      XDG_CONFIG_HOME: configHome({ readOnly: true, redaction: { enabled: false } })
    })
    if (Either.isLeft(fromFile)) throw new Error(String(fromFile.left))
    expect(fromFile.right.configPath).toMatch(/termpilot\/config\.json$/)
    expect(fromFile.right.settings.readOnly).toBe(true)
    expect(fromFile.right.settings.redaction.enabled).toBe(false)

    const plain = configHome({})
    const fromEnv = await load({ HOME: "/h", XDG_CONFIG_HOME: plain, TERMPILOT_READ_ONLY: "true" })
    const fromFlag = await load({ HOME: "/h", XDG_CONFIG_HOME: plain }, { readOnly: true })
    const neither = await load({ HOME: "/h", XDG_CONFIG_HOME: plain })
    expect(Either.map(fromEnv, (c) => c.settings.readOnly)).toEqual(Either.right(true))
    expect(Either.map(fromFlag, (c) => c.settings.readOnly)).toEqual(Either.right(true))
    expect(Either.map(neither, (c) => c.settings.readOnly)).toEqual(Either.right(false))
  })

  it("fails, naming the file and the key, on an invalid config file", async () => {
    const config = await load({ HOME: "/h", XDG_CONFIG_HOME: configHome({ readonly: true }) })
    expect(Either.isLeft(config)).toBe(true)
    if (Either.isLeft(config)) {
      expect(String(config.left.message)).toContain("termpilot/config.json")
      expect(String(config.left.message)).toContain("readonly")
    }
  })

  it("takes the tool deadline from the file or TERMPILOT_TOOL_DEADLINE_MS (which wins); 15 s otherwise", async () => {
    const none = await load({ HOME: "/nonexistent-home" })
    expect(Either.map(none, (c) => c.settings.toolDeadlineMs)).toEqual(Either.right(15_000))
    const file = configHome({ toolDeadlineMs: 4_000 })
    const fromFile = await load({ HOME: "/h", XDG_CONFIG_HOME: file })
    expect(Either.map(fromFile, (c) => c.settings.toolDeadlineMs)).toEqual(Either.right(4_000))
    const fromEnv = await load({ HOME: "/h", XDG_CONFIG_HOME: file, TERMPILOT_TOOL_DEADLINE_MS: "2500" })
    expect(Either.map(fromEnv, (c) => c.settings.toolDeadlineMs)).toEqual(Either.right(2_500))
  })

  it("refuses a tool deadline outside 100 ms … 300 s, in the env and in the file", async () => {
    for (const value of ["0", "99", "300001", "soon", "1.5"]) {
      const config = await load({ HOME: "/nonexistent-home", TERMPILOT_TOOL_DEADLINE_MS: value })
      expect(Either.isLeft(config), value).toBe(true)
    }
    const bad = await load({ HOME: "/h", XDG_CONFIG_HOME: configHome({ toolDeadlineMs: 50 }) })
    expect(Either.isLeft(bad)).toBe(true)
    if (Either.isLeft(bad)) expect(String(bad.left.message)).toContain("toolDeadlineMs")
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
    if (Either.isLeft(config)) throw new Error(String(config.left))
    expect(config.right.tmux.hosts?.map((h) => h.spec)).toEqual([
      "deploy@db-1:2222",
      "build-box",
      "ops@db-2:2200"
    ])
    expect(config.right.tmux.hosts?.[0]).toEqual({
      user: "deploy",
      host: "db-1",
      port: 2222,
      spec: "deploy@db-1:2222"
    })
    expect(config.right.tmux.sshPath).toBe("/opt/bin/ssh")
    expect(config.right.tmux.sshConfig).toBe("/h/.ssh/termpilot_config")
    for (const value of ["-oProxyCommand=x", "a b", "h:99999", "build-box,,x", "ssh://h"]) {
      const bad = await load({ HOME: "/nonexistent-home", TERMPILOT_TMUX_HOSTS: value })
      expect(Either.isLeft(bad), value).toBe(true)
      if (Either.isLeft(bad)) expect(String(bad.left), value).toContain("TERMPILOT_TMUX_HOSTS")
    }
    const badFile = await load({ HOME: "/h", XDG_CONFIG_HOME: configHome({ tmux: { hosts: ["-oX=y"] } }) })
    expect(Either.isLeft(badFile)).toBe(true)
    if (Either.isLeft(badFile)) expect(String(badFile.left.message)).toContain("tmux.hosts")
  })
})
