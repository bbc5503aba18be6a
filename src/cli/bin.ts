#!/usr/bin/env node
/**
 * The `termpilot` executable: runs the CLI with Node's platform services and stderr-only logging.
 * Exit code 0 on success (including stdin closing in server mode), 1 on failure.
 */
import { ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Effect } from "effect"
import { StderrLogging } from "../layers/Logging.js"
import { runCli } from "./Cli.js"

runCli(process.argv).pipe(
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause) ||
    Cause.failureOption(cause).pipe((f) => f._tag === "Some" && ValidationError.isValidationError(f.value))
      ? Effect.void
      : Effect.logError("termpilot failed", Cause.pretty(cause))
  ),
  Effect.provide(NodeContext.layer),
  Effect.provide(StderrLogging),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
