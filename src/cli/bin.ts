/**
 * The program behind `termpilot` (bundled into dist/termpilot.main.cjs, which the bin in src/launcher/
 * compiles and runs): the CLI with Node's platform services and stderr-only logging.
 * Exit code 0 on success (including stdin closing in server mode), 2 for a configuration to fix
 * (config file or environment), 1 on other failures. Colour only on a terminal (Colour.ts). The plain
 * server (what an MCP client starts) runs without loading the command-line parser and the
 * subcommands; every other command line loads them (Cli.ts) on demand.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Config, Console, Effect, Schema, SchemaIssue } from "effect"
import { ConfigFileError } from "../domain/ConfigFile.js"
import { StderrLogging } from "../layers/app/Logging.js"
import { withColourPolicy } from "./Colour.js"
import { runServer, serverOnlyArgs } from "./RunServer.js"

const schemaIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** A bad environment value in one line: `(Invalid data at NAME: "what is wrong")` per problem. */
const describeConfigError = (error: Config.ConfigError): string => {
  if (!Schema.isSchemaError(error.cause)) return error.message.replace(/\s*\n\s*/g, " ")
  return schemaIssues(error.cause.issue)
    .issues.map(({ message, path }) => {
      const at = (path ?? []).map((key) => String(typeof key === "object" ? key.key : key)).join(".")
      const text = message.replace(/\s*\n\s*/g, " ")
      return at === "" ? `(Invalid data: "${text}")` : `(Invalid data at ${at}: "${text}")`
    })
    .join(", ")
}

/** A configuration the user must fix: said in one line, exit code 2, no stack trace. */
const configurationProblem = (error: unknown): string | undefined => {
  if (error instanceof ConfigFileError) return error.message
  if (error instanceof Config.ConfigError) return `invalid environment setting: ${describeConfigError(error)}`
  return undefined
}

/**
 * Ends the program: a configuration problem in one line (exit 2), any other failure logged unless
 * `reported` says the command line has already told the user (its own parse errors).
 */
const finish = <A, E, R>(program: Effect.Effect<A, E, R>, reported: (error: unknown) => boolean) =>
  program.pipe(
    Effect.catchIf(
      (error) => configurationProblem(error) !== undefined,
      (error) =>
        Console.error(`termpilot: ${configurationProblem(error)}`).pipe(
          Effect.andThen(
            Effect.sync(() => {
              process.exitCode = 2
            })
          )
        )
    ),
    Effect.tapCause((cause) =>
      Cause.hasInterruptsOnly(cause) ||
      Cause.findErrorOption(cause).pipe((f) => f._tag === "Some" && reported(f.value))
        ? Effect.void
        : Effect.logError("termpilot failed", Cause.pretty(cause))
    )
  )

const serverFlags = serverOnlyArgs(process.argv.slice(2))
const program =
  serverFlags !== undefined
    ? finish(runServer(serverFlags), () => false)
    : Effect.flatMap(
        Effect.promise(() => import("./Cli.js")),
        ({ runCli, reportedByCli }) => finish(runCli(process.argv), reportedByCli)
      )

program.pipe(
  withColourPolicy,
  Effect.provide(StderrLogging),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
