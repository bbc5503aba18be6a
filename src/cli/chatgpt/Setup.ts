/**
 * `termpilot chatgpt setup --tunnel-id …`: validates everything locally first (tunnel id, alias,
 * key variable present, the TermPilot command), then `runtimes connect`, then polls
 * `runtimes status` until the runtime runs, is healthy and is not reported unready.
 */
import { Clock, Effect, Result } from "effect"
import { Command, Flag } from "effect/cli"
import { parseTunnelId, type TunnelId } from "../../domain/TunnelInputs.js"
import { type RuntimePayload, TunnelClient, type TunnelClientError } from "../../services/TunnelClient.js"
import {
  adviceJson,
  adviceLines,
  chatgptNextSteps,
  failureJson,
  failureLines,
  keyMissingRemedy,
  runtimeSummary,
  runtimeVerdict,
  statusLines
} from "./Format.js"
import { currentLaunch, type McpLaunch, mcpCommandFor } from "./McpCommand.js"
import { EXIT_FAILED, emit, type Outcome, refusal } from "./Outcome.js"
import {
  aliasOrRefusal,
  type CommonArgs,
  commonOptions,
  keyEnvOrRefusal,
  runtimeKeyPresent,
  tunnelClientLayer
} from "./Shared.js"

interface SetupArgs extends CommonArgs {
  readonly tunnelId: string
  readonly wait: number
}

const failed = (error: TunnelClientError, alias: string, step: string): Outcome => ({
  exitCode: EXIT_FAILED,
  out: [],
  err: [`TermPilot could not ${step}.`, ...failureLines(error, alias)],
  json: failureJson(error, alias)
})

/** Polls status while the runtime is up but not yet healthy/ready, until `waitSeconds` pass. */
const awaitRuntime = (alias: string, waitSeconds: number) =>
  Effect.gen(function* () {
    const tunnel = yield* TunnelClient
    const deadline = (yield* Clock.currentTimeMillis) + waitSeconds * 1000
    for (;;) {
      const payload: RuntimePayload = yield* tunnel.status(alias)
      const settled = runtimeVerdict(payload, true).ok || payload.process_running !== true
      if (settled || (yield* Clock.currentTimeMillis) >= deadline) return payload
      yield* Effect.sleep("1 second")
    }
  })

const connectAndCheck = (
  args: SetupArgs,
  alias: string,
  tunnelId: TunnelId,
  keyEnv: string,
  mcpCommand: string
) =>
  Effect.gen(function* () {
    const tunnel = yield* TunnelClient
    const connected = yield* Effect.result(
      tunnel.connect({ alias, tunnelId, runtimeKeyEnv: keyEnv, mcpCommand })
    )
    if (Result.isFailure(connected)) return failed(connected.failure, alias, "start the tunnel runtime")
    const checked = yield* Effect.result(awaitRuntime(alias, args.wait))
    if (Result.isFailure(checked))
      return failed(checked.failure, alias, "confirm the tunnel runtime's status")
    const payload = checked.success
    const verdict = runtimeVerdict(payload, true)
    if (!verdict.ok) {
      return {
        exitCode: EXIT_FAILED,
        out: [],
        err: [
          `Error: the tunnel runtime was started but ${verdict.problem}.`,
          ...statusLines(payload),
          ...adviceLines(payload),
          `Check again with: termpilot chatgpt status --alias ${alias}   (and: termpilot chatgpt doctor)`
        ],
        json: {
          ok: false,
          error: { reason: "runtime_unhealthy", message: verdict.problem },
          runtime: runtimeSummary(payload),
          ...adviceJson(payload)
        }
      } satisfies Outcome
    }
    return {
      exitCode: 0,
      out: [
        "TermPilot is connected to its tunnel runtime.",
        ...statusLines(payload),
        "",
        ...chatgptNextSteps(tunnelId)
      ],
      err: [],
      json: { ok: true, runtime: runtimeSummary(payload), tunnel_id: tunnelId }
    } satisfies Outcome
  }).pipe(Effect.provide(tunnelClientLayer(args)))

const setupProgram = (args: SetupArgs, launch: McpLaunch) =>
  Effect.gen(function* () {
    const tunnelId = parseTunnelId(args.tunnelId)
    if (Result.isFailure(tunnelId)) return refusal("invalid_tunnel_id", tunnelId.failure)
    const alias = aliasOrRefusal(args.alias)
    if (Result.isFailure(alias)) return alias.failure
    const keyEnv = keyEnvOrRefusal(args.runtimeKeyEnv)
    if (Result.isFailure(keyEnv)) return keyEnv.failure
    if (!(yield* runtimeKeyPresent(keyEnv.success))) {
      return refusal(
        "missing_runtime_key",
        `the runtime key variable ${keyEnv.success} is not set in this shell; nothing was started.`,
        keyMissingRemedy(keyEnv.success),
        EXIT_FAILED
      )
    }
    const mcpCommand = yield* mcpCommandFor(launch)
    if (Result.isFailure(mcpCommand)) return refusal("bad_mcp_command", mcpCommand.failure, [], EXIT_FAILED)
    return yield* connectAndCheck(args, alias.success, tunnelId.success, keyEnv.success, mcpCommand.success)
  })

export const makeSetupCommand = (launch: McpLaunch = currentLaunch()) =>
  Command.make(
    "setup",
    {
      ...commonOptions,
      tunnelId: Flag.String("tunnel-id").pipe(
        Flag.withDescription("The existing tunnel's id (tunnel_ + 32 hex digits, from the OpenAI Platform).")
      ),
      wait: Flag.Int("wait").pipe(
        Flag.withDescription("Seconds to wait for the runtime to become healthy and ready."),
        Flag.withDefault(20)
      )
    },
    (args) => setupProgram(args, launch).pipe(Effect.flatMap((outcome) => emit(outcome, args.json)))
  ).pipe(
    Command.withDescription("Connect a managed local tunnel runtime that runs this TermPilot over stdio.")
  )
