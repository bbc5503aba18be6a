/**
 * `termpilot chatgpt disconnect`: stops the local managed runtime (`runtimes stop`). The remote
 * tunnel and the ChatGPT app are kept, so `setup` with the same tunnel id reconnects.
 */
import { Effect, Result } from "effect"
import { Command } from "effect/cli"
import { TunnelClient } from "../../services/TunnelClient.js"
import { failureJson, failureLines, tunnelIdOf } from "./Format.js"
import { EXIT_FAILED, emit, type Outcome } from "./Outcome.js"
import { aliasOrRefusal, type CommonArgs, commonOptions, tunnelClientLayer } from "./Shared.js"

const disconnectProgram = (args: CommonArgs) =>
  Effect.gen(function* () {
    const alias = aliasOrRefusal(args.alias)
    if (Result.isFailure(alias)) return alias.failure
    const tunnel = yield* TunnelClient
    const result = yield* Effect.result(tunnel.stop(alias.success))
    if (Result.isFailure(result)) {
      return {
        exitCode: EXIT_FAILED,
        out: [],
        err: ["TermPilot could not stop the tunnel runtime.", ...failureLines(result.failure, alias.success)],
        json: failureJson(result.failure, alias.success)
      } satisfies Outcome
    }
    const tunnelId = tunnelIdOf(result.success)
    const already = result.success.already_stopped === true
    return {
      exitCode: 0,
      out: [
        already
          ? `The local tunnel runtime '${alias.success}' was not running.`
          : `Stopped the local tunnel runtime '${alias.success}'.`,
        "The remote tunnel was kept (and so is the ChatGPT app using it). To connect again, load your key and run:",
        `  termpilot chatgpt setup --tunnel-id ${tunnelId ?? "<your tunnel id>"}${alias.success === "termpilot" ? "" : ` --alias ${alias.success}`}`
      ],
      err: [],
      json: {
        ok: true,
        alias: alias.success,
        already_stopped: already,
        ...(tunnelId === undefined ? {} : { tunnel_id: tunnelId }),
        remote_tunnel_kept: true
      }
    } satisfies Outcome
  }).pipe(Effect.provide(tunnelClientLayer(args)))

export const disconnectCommand = Command.make("disconnect", commonOptions, (args) =>
  disconnectProgram(args).pipe(Effect.flatMap((outcome) => emit(outcome, args.json)))
).pipe(Command.withDescription("Stop the local managed runtime; the remote tunnel is kept."))
