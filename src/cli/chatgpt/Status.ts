/**
 * `termpilot chatgpt status`: a short summary of the managed runtime (only reported fields);
 * exits non-zero when the runtime is not running or not healthy, so scripts can rely on it.
 */
import { Command } from "@effect/cli"
import { Effect, Either } from "effect"
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
    if (Either.isLeft(alias)) return alias.left
    const tunnel = yield* TunnelClient
    const result = yield* Effect.either(tunnel.status(alias.right))
    if (Either.isLeft(result)) {
      return {
        exitCode: EXIT_FAILED,
        out: [],
        err: failureLines(result.left, alias.right),
        json: failureJson(result.left, alias.right)
      } satisfies Outcome
    }
    const payload = result.right
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
