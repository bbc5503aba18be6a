/**
 * `termpilot chatgpt status`: a short summary of the managed runtime (only reported fields);
 * exits non-zero when the runtime is not running or not healthy, so scripts can rely on it.
 */
import { Effect, Result } from "effect"
import { Command } from "effect/cli"
import { TunnelClient } from "../../services/TunnelClient.js"
import {
  adviceJson,
  adviceLines,
  failureJson,
  failureLines,
  runtimeSummary,
  runtimeVerdict,
  statusLines
} from "./Format.js"
import { EXIT_FAILED, emit, type Outcome } from "./Outcome.js"
import { aliasOrRefusal, type CommonArgs, commonOptions, tunnelClientLayer } from "./Shared.js"

const statusProgram = (args: CommonArgs) =>
  Effect.gen(function* () {
    const alias = aliasOrRefusal(args.alias)
    if (Result.isFailure(alias)) return alias.failure
    const tunnel = yield* TunnelClient
    const result = yield* Effect.result(tunnel.status(alias.success))
    if (Result.isFailure(result)) {
      return {
        exitCode: EXIT_FAILED,
        out: [],
        err: failureLines(result.failure, alias.success),
        json: failureJson(result.failure, alias.success)
      } satisfies Outcome
    }
    const payload = result.success
    const healthy = runtimeVerdict(payload, false)
    const ready = runtimeVerdict(payload, true)
    const problem = healthy.ok ? ready.problem : healthy.problem
    return {
      exitCode: healthy.ok ? 0 : EXIT_FAILED,
      out: ["TermPilot tunnel runtime:", ...statusLines(payload)],
      err: ready.ok
        ? []
        : [
            `Problem: ${problem}.`,
            ...adviceLines(payload),
            "Start it again with: termpilot chatgpt setup --tunnel-id <your tunnel id>   (diagnose: termpilot chatgpt doctor)"
          ],
      json: {
        ok: healthy.ok,
        ...runtimeSummary(payload),
        ...(problem === "" ? {} : { problem }),
        ...adviceJson(payload)
      }
    } satisfies Outcome
  }).pipe(Effect.provide(tunnelClientLayer(args)))

export const statusCommand = Command.make("status", commonOptions, (args) =>
  statusProgram(args).pipe(Effect.flatMap((outcome) => emit(outcome, args.json)))
).pipe(
  Command.withDescription(
    "Show the managed tunnel runtime's state; non-zero exit when not running or not healthy."
  )
)
