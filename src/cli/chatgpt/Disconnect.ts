/**
 * `termpilot chatgpt disconnect`: stops the local managed runtime (`runtimes stop`). The remote
 * tunnel and the ChatGPT app are kept, so `setup` with the same tunnel id reconnects.
 */
import { Command } from "@effect/cli"
import { Effect, Either } from "effect"
import { TunnelClient } from "../../services/TunnelClient.js"
import { failureJson, failureLines, tunnelIdOf } from "./Format.js"
import { EXIT_FAILED, emit, type Outcome } from "./Outcome.js"
import { aliasOrRefusal, type CommonArgs, commonOptions, tunnelClientLayer } from "./Shared.js"

const disconnectProgram = (args: CommonArgs) =>
  Effect.gen(function* () {
    const alias = aliasOrRefusal(args.alias)
    if (Either.isLeft(alias)) return alias.left
    const tunnel = yield* TunnelClient
    const result = yield* Effect.either(tunnel.stop(alias.right))
    if (Either.isLeft(result)) {
      return {
        exitCode: EXIT_FAILED,
        out: [],
        err: ["TermPilot could not stop the tunnel runtime.", ...failureLines(result.left, alias.right)],
        json: failureJson(result.left, alias.right)
      } satisfies Outcome
    }
    const tunnelId = tunnelIdOf(result.right)
    const already = result.right.already_stopped === true
    return {
      exitCode: 0,
      out: [
        already
          ? `The local tunnel runtime '${alias.right}' was not running.`
          : `Stopped the local tunnel runtime '${alias.right}'.`,
        "The remote tunnel was kept (and so is the ChatGPT app using it). To connect again, load your key and run:",
        `  termpilot chatgpt setup --tunnel-id ${tunnelId ?? "<your tunnel id>"}${alias.right === "termpilot" ? "" : ` --alias ${alias.right}`}`
      ],
      err: [],
      json: {
        ok: true,
        alias: alias.right,
        already_stopped: already,
        ...(tunnelId === undefined ? {} : { tunnel_id: tunnelId }),
        remote_tunnel_kept: true
      }
    } satisfies Outcome
  }).pipe(Effect.provide(tunnelClientLayer(args)))

export const disconnectCommand = Command.make("disconnect", commonOptions, (args) =>
  disconnectProgram(args).pipe(Effect.flatMap((outcome) => emit(outcome, args.json)))
).pipe(Command.withDescription("Stop the local managed runtime; the remote tunnel is kept."))
