/**
 * `termpilot doctor`: read-only checks of the terminal side — iTerm2's API socket, the handshake
 * and authentication, the sessions, shell integration per session — each with a remedy.
 * `--json` prints the structured report; the exit code is 1 when a check failed.
 */
import { Command, Options } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer } from "effect"
import { passed, renderChecks } from "../domain/HealthCheck.js"
import { AppConfigLive } from "../layers/AppConfigLive.js"
import { BackendLive } from "../layers/BackendLive.js"
import { terminalDoctor } from "../layers/iterm2-backend/Iterm2Doctor.js"
import { EXIT_FAILED, emit } from "./chatgpt/Outcome.js"

const LABELS = {
  iterm2_socket: "iTerm2 API socket",
  iterm2_connection: "iTerm2 connection",
  sessions: "sessions",
  shell_integration: "shell integration"
} as const

const DoctorLive = Layer.mergeAll(BackendLive, NodeContext.layer).pipe(Layer.provideMerge(AppConfigLive))

export const doctorProgram = Effect.gen(function* () {
  const checks = yield* terminalDoctor
  const ok = passed(checks)
  return {
    exitCode: ok ? 0 : EXIT_FAILED,
    out: renderChecks("TermPilot terminal doctor (iTerm2)", checks, (name) => LABELS[name]),
    err: [],
    json: { ok, checks }
  }
})

export const doctorCommand = Command.make(
  "doctor",
  { json: Options.boolean("json").pipe(Options.withDescription("Print the report as JSON.")) },
  ({ json }) =>
    doctorProgram.pipe(
      Effect.provide(DoctorLive),
      Effect.flatMap((outcome) => emit(outcome, json))
    )
).pipe(
  Command.withDescription(
    "Check the terminal side, read-only: iTerm2's API socket, handshake and auth, sessions, shell integration."
  )
)
