/**
 * What every `termpilot chatgpt …` subcommand shares: its options (alias, tunnel-client path,
 * runtime-key variable, --json, --timeout), input validation into refusals, the TunnelClient
 * layer built from those options, and the runtime-key presence check (value never read out).
 */
import { Config, Effect, Option, Redacted, Result } from "effect"
import { Flag } from "effect/cli"
import { parseAlias, parseEnvName } from "../../domain/TunnelInputs.js"
import { defaultTimeouts, TunnelClientLive } from "../../layers/tunnel/TunnelClientLive.js"
import { type Outcome, refusal } from "./Outcome.js"

export const DEFAULT_ALIAS = "termpilot"
export const DEFAULT_KEY_ENV = "CONTROL_PLANE_API_KEY"

export const commonOptions = {
  alias: Flag.String("alias").pipe(
    Flag.withDescription("Name of the managed tunnel runtime."),
    Flag.withDefault(DEFAULT_ALIAS)
  ),
  tunnelClient: Flag.String("tunnel-client").pipe(
    Flag.withDescription(
      "Path (or name on PATH) of the tunnel-client executable; default: tunnel-client on PATH."
    ),
    Flag.optional
  ),
  runtimeKeyEnv: Flag.String("runtime-key-env").pipe(
    Flag.withDescription("Environment variable holding the runtime API key (passed on only as env:NAME)."),
    Flag.withDefault(DEFAULT_KEY_ENV)
  ),
  timeout: Flag.Int("timeout").pipe(
    Flag.withDescription("Seconds to wait for each tunnel-client call before stopping it."),
    Flag.optional
  ),
  json: Flag.Boolean("json").pipe(
    Flag.withDescription("Print one JSON object instead of text."),
    Flag.withDefault(false)
  )
}

export interface CommonArgs {
  readonly alias: string
  readonly tunnelClient: Option.Option<string>
  readonly runtimeKeyEnv: string
  readonly timeout: Option.Option<number>
  readonly json: boolean
}

/** The TunnelClient layer for these options; `--timeout` caps every call when given. */
export const tunnelClientLayer = (args: CommonArgs) =>
  TunnelClientLive({
    executable: args.tunnelClient,
    timeouts: Option.match(args.timeout, {
      onNone: () => defaultTimeouts,
      onSome: (seconds) => {
        const each = `${Math.max(1, seconds)} seconds` as const
        return { version: each, status: each, connect: each, stop: each }
      }
    })
  })

/** Validated alias, or the refusal to print. */
export const aliasOrRefusal = (raw: string): Result.Result<string, Outcome> =>
  Result.mapError(parseAlias(raw), (message) => refusal("invalid_alias", message))

export const keyEnvOrRefusal = (raw: string): Result.Result<string, Outcome> =>
  Result.mapError(parseEnvName(raw), (message) => refusal("invalid_runtime_key_env", message))

/** Whether the runtime-key variable is set and non-blank. The value itself stays redacted. */
export const runtimeKeyPresent = (name: string): Effect.Effect<boolean> =>
  Config.Redacted(name).pipe(
    Effect.map((value) => Redacted.value(value).trim() !== ""),
    Effect.orElseSucceed(() => false)
  )
