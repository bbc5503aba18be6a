/**
 * Validation of what a person types for the ChatGPT connection: the tunnel id
 * (`tunnel_` + 32 lowercase hex), the runtime alias and the name of the runtime-key variable.
 * Pure; every parser trims its input and explains a refusal in one sentence.
 */
import { Result, Schema } from "effect"

export const TunnelId = Schema.String.check(Schema.isPattern(/^tunnel_[0-9a-f]{32}$/)).pipe(
  Schema.brand("TunnelId")
)
export type TunnelId = typeof TunnelId.Type

export const parseTunnelId = (raw: string): Result.Result<TunnelId, string> => {
  const id = raw.trim()
  if (id === "") return Result.fail("A tunnel id is required (tunnel_ followed by 32 lowercase hex digits).")
  return Schema.is(TunnelId)(id)
    ? Result.succeed(id)
    : Result.fail(
        // The input is not echoed: a key pasted into the wrong option must not be printed.
        "That is not a tunnel id: expected tunnel_ followed by 32 lowercase hex digits " +
          "(copy it from the OpenAI Platform Tunnels page)."
      )
}

/** Alias of the managed runtime; must not look like a flag to tunnel-client. */
export const parseAlias = (raw: string): Result.Result<string, string> => {
  const alias = raw.trim()
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(alias)
    ? Result.succeed(alias)
    : Result.fail(
        `"${alias}" is not a usable alias: use letters, digits, "-" or "_", starting with a letter or digit.`
      )
}

/** Name of the environment variable holding the runtime key (what `env:NAME` may name). */
export const parseEnvName = (raw: string): Result.Result<string, string> => {
  const name = raw.trim()
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
    ? Result.succeed(name)
    : Result.fail(
        `"${name}" is not an environment variable name (letters, digits and "_", not starting with a digit).`
      )
}
