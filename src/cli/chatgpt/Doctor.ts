/**
 * `termpilot chatgpt doctor`: ordered, read-only checks — tunnel-client found and `--version`
 * runs, runtime key present, runtime status — each ok / failed / skipped with a remedy. Works
 * without tunnel-client installed; never starts, stops or writes anything.
 */
import { Effect, Result } from "effect"
import { Command } from "effect/cli"
import { check, type Check as HealthCheck, passed, renderChecks } from "../../domain/HealthCheck.js"
import { TunnelClient } from "../../services/TunnelClient.js"
import {
  adviceLines,
  BREW_INSTALL,
  keyMissingRemedy,
  remedyFor,
  runtimeVerdict,
  tunnelIdOf
} from "./Format.js"
import { EXIT_FAILED, emit, type Outcome } from "./Outcome.js"
import {
  aliasOrRefusal,
  type CommonArgs,
  commonOptions,
  keyEnvOrRefusal,
  runtimeKeyPresent,
  tunnelClientLayer
} from "./Shared.js"

export type Check = HealthCheck<"tunnel_client" | "runtime_key" | "runtime">

const LABELS: Record<Check["name"], string> = {
  tunnel_client: "tunnel-client",
  runtime_key: "runtime key",
  runtime: "tunnel runtime"
}

const runChecks = (alias: string, keyEnv: string) =>
  Effect.gen(function* () {
    const tunnel = yield* TunnelClient
    const checks: Array<Check> = []

    const found = yield* Effect.result(Effect.zip(tunnel.executable, tunnel.version))
    const clientOk = Result.isSuccess(found)
    checks.push(
      Result.match(found, {
        onSuccess: ([path, version]) => check("tunnel_client", "ok", `${version} (${path})`),
        onFailure: (error) =>
          check(
            "tunnel_client",
            "failed",
            error.detail,
            error.reason === "not_found"
              ? remedyFor(error, alias)
              : [
                  `Reinstall it (brew reinstall openai/tools/tunnel-client, or ${BREW_INSTALL}).`,
                  ...remedyFor(error, alias)
                ]
          )
      })
    )

    checks.push(
      (yield* runtimeKeyPresent(keyEnv))
        ? check("runtime_key", "ok", `${keyEnv} is set (value not shown).`)
        : check("runtime_key", "failed", `${keyEnv} is not set in this shell.`, keyMissingRemedy(keyEnv))
    )

    if (!clientOk) {
      checks.push(check("runtime", "skipped", "Skipped: needs a working tunnel-client."))
      return checks
    }
    const status = yield* Effect.result(tunnel.status(alias))
    if (Result.isFailure(status)) {
      checks.push(
        check("runtime", "failed", status.failure.detail, [
          ...adviceLines(status.failure.payload),
          ...remedyFor(status.failure, alias),
          `If this alias was never connected: termpilot chatgpt setup --tunnel-id <your tunnel id>`
        ])
      )
      return checks
    }
    const payload = status.success
    const verdict = runtimeVerdict(payload, true)
    const where = [`alias ${payload.alias ?? alias}`, tunnelIdOf(payload)].filter(
      (part) => part !== undefined
    )
    checks.push(
      verdict.ok
        ? check(
            "runtime",
            "ok",
            `Running, healthy${payload.ready === true ? " and ready" : ""} (${where.join(", ")}).`
          )
        : check(
            "runtime",
            "failed",
            `${verdict.problem[0]!.toUpperCase()}${verdict.problem.slice(1)} (${where.join(", ")}).`,
            [
              ...adviceLines(payload),
              `Start it again: termpilot chatgpt setup --tunnel-id ${tunnelIdOf(payload) ?? "<your tunnel id>"}`
            ]
          )
    )
    return checks
  })

const render = (alias: string, checks: ReadonlyArray<Check>): Outcome => {
  const ok = passed(checks)
  const lines = renderChecks(`TermPilot ChatGPT connection doctor (alias ${alias})`, checks, (n) => LABELS[n])
  return { exitCode: ok ? 0 : EXIT_FAILED, out: lines, err: [], json: { ok, checks } }
}

const doctorProgram = (args: CommonArgs) =>
  Effect.gen(function* () {
    const alias = aliasOrRefusal(args.alias)
    if (Result.isFailure(alias)) return alias.failure
    const keyEnv = keyEnvOrRefusal(args.runtimeKeyEnv)
    if (Result.isFailure(keyEnv)) return keyEnv.failure
    return render(alias.success, yield* runChecks(alias.success, keyEnv.success))
  }).pipe(Effect.provide(tunnelClientLayer(args)))

export const doctorCommand = Command.make("doctor", commonOptions, (args) =>
  doctorProgram(args).pipe(Effect.flatMap((outcome) => emit(outcome, args.json)))
).pipe(Command.withDescription("Run read-only checks of the ChatGPT connection, in order, with remedies."))
