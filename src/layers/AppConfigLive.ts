/**
 * AppConfigLive — the only reader of the environment: HOME, IT2_SUITE, ITERM2_COOKIE/ITERM2_KEY
 * (as Redacted), IT2_APP_PATH, TERMPILOT_OSASCRIPT and the iTerm2 timeouts.
 */
import { homedir } from "node:os"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../services/AppConfig.js"
import { iterm2SocketPath } from "./iterm2/SocketPath.js"

const nonBlank = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

const nonBlankRedacted = (name: string) =>
  Config.option(Config.redacted(name)).pipe(
    Config.map(Option.filter((value) => Redacted.value(value).trim() !== ""))
  )

const positiveMs = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({
      message: `${name} must be a positive number of milliseconds`,
      validation: (n) => n > 0
    }),
    Config.withDefault(fallback)
  )

/** Reads the environment once, when the layer is built; fails with a ConfigError on bad values. */
export const AppConfigLive = Layer.effect(
  AppConfig,
  Effect.gen(function* () {
    const home = Option.getOrElse(yield* nonBlank("HOME"), () => homedir())
    const suite = yield* nonBlank("IT2_SUITE")
    return {
      iterm2: {
        socketPath: iterm2SocketPath(home, Option.getOrUndefined(suite)),
        cookie: yield* nonBlankRedacted("ITERM2_COOKIE"),
        key: yield* nonBlankRedacted("ITERM2_KEY"),
        osascript: Option.getOrElse(yield* nonBlank("TERMPILOT_OSASCRIPT"), () => "/usr/bin/osascript"),
        appName: Option.getOrElse(yield* nonBlank("IT2_APP_PATH"), () => "iTerm2"),
        requestTimeoutMs: yield* positiveMs("TERMPILOT_ITERM2_REQUEST_TIMEOUT_MS", 10_000),
        connectTimeoutMs: yield* positiveMs("TERMPILOT_ITERM2_CONNECT_TIMEOUT_MS", 5_000)
      }
    }
  })
)
