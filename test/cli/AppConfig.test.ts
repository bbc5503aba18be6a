/**
 * AppConfigLive reads the environment (through Effect's ConfigProvider) once: socket path from
 * HOME and IT2_SUITE, secrets as Redacted, defaults, and a ConfigError for a bad timeout.
 */
import { ConfigProvider, Effect, Either, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { AppConfigLive } from "../../src/layers/AppConfigLive.js"
import { AppConfig } from "../../src/services/AppConfig.js"

const load = (env: Record<string, string>) =>
  Effect.runSync(
    AppConfig.pipe(
      Effect.provide(AppConfigLive),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
      Effect.either
    )
  )

describe("AppConfigLive", () => {
  it("derives the socket path and applies defaults", () => {
    const config = load({ HOME: "/Users/ada" })
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

  it("honours IT2_SUITE, IT2_APP_PATH, TERMPILOT_OSASCRIPT and keeps the cookie and key redacted", () => {
    const config = load({
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

  it("treats blank values as unset", () => {
    const config = load({ HOME: "/h", IT2_SUITE: " ", ITERM2_COOKIE: "", TERMPILOT_OSASCRIPT: "" })
    if (Either.isLeft(config)) throw new Error(String(config.left))
    expect(config.right.iterm2.socketPath).toBe("/h/Library/Application Support/iTerm2/private/socket")
    expect(Option.isNone(config.right.iterm2.cookie)).toBe(true)
    expect(config.right.iterm2.osascript).toBe("/usr/bin/osascript")
  })

  it("refuses a timeout that is not a positive integer", () => {
    for (const value of ["0", "-5", "soon"]) {
      const config = load({ HOME: "/h", TERMPILOT_ITERM2_CONNECT_TIMEOUT_MS: value })
      expect(Either.isLeft(config), value).toBe(true)
    }
  })
})
