#!/usr/bin/env node
/**
 * The `termpilot` executable: runs the CLI with Node's platform services and stderr-only logging.
 * Exit code 0 on success (including stdin closing in server mode), 2 for a configuration to fix
 * (config file or environment), 1 on other failures. Colour only on a terminal (Colour.ts).
 */
import { ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, ConfigError, Console, Effect } from "effect"
import { ConfigFileError } from "../domain/ConfigFile.js"
import { StderrLogging } from "../layers/Logging.js"
import { runCli } from "./Cli.js"
import { withColourPolicy } from "./Colour.js"

/** A configuration the user must fix: said in one line, exit code 2, no stack trace. */
const configurationProblem = (error: unknown): string | undefined => {
  if (error instanceof ConfigFileError) return error.message
  if (ConfigError.isConfigError(error)) return `invalid environment setting: ${String(error)}`
  return undefined
}

runCli(process.argv).pipe(
  Effect.catchIf(
    (error) => configurationProblem(error) !== undefined,
    (error) =>
      Console.error(`termpilot: ${configurationProblem(error)}`).pipe(
        Effect.zipRight(
          Effect.sync(() => {
            process.exitCode = 2
          })
        )
      )
  ),
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause) ||
    Cause.failureOption(cause).pipe((f) => f._tag === "Some" && ValidationError.isValidationError(f.value))
      ? Effect.void
      : Effect.logError("termpilot failed", Cause.pretty(cause))
  ),
  withColourPolicy,
  Effect.provide(NodeContext.layer),
  Effect.provide(StderrLogging),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
