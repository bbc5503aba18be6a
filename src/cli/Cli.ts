/**
 * The `termpilot` command line (spec only; bin.ts runs it). No subcommand = the stdio MCP server.
 * To add a subcommand, define it in its own module and append it to `subcommands` below.
 */
import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { mainLive } from "../layers/MainLive.js"
import { packageVersion } from "../layers/PackageRoot.js"
import { AppConfig } from "../services/AppConfig.js"
import { chatgptCommand, exitCodeOnCliExit } from "./chatgpt/ChatgptCommand.js"
import { doctorCommand } from "./DoctorCommand.js"
import { serveStdio } from "./Serve.js"
import { shellIntegrationCommand } from "./ShellIntegrationCommand.js"

const readOnly = Options.boolean("read-only").pipe(
  Options.withDescription(
    "Read-only mode: run_command is not offered and nothing is ever typed into a terminal " +
      '(also: TERMPILOT_READ_ONLY=1, or "readOnly": true in the config file).'
  )
)

/** The stdio MCP server, with what the command line forces on top of the environment and config file. */
const runServer = ({ readOnly }: { readonly readOnly: boolean }) =>
  Effect.flatMap(AppConfig, ({ settings }) => serveStdio({ readOnly: settings.readOnly })).pipe(
    Effect.provide(mainLive({ readOnly }))
  )

const serve = Command.make("serve", { readOnly }, runServer).pipe(
  Command.withDescription("Run the stdio MCP server (what `termpilot` with no subcommand does).")
)

/** Every subcommand of `termpilot`; one line per subcommand. */
export const subcommands = [serve, doctorCommand, chatgptCommand, shellIntegrationCommand] as const

export const termpilot = Command.make("termpilot", { readOnly }, runServer).pipe(
  Command.withDescription(
    "MCP server that lets an AI assistant read and run commands in your open terminal sessions. " +
      "With no subcommand it serves MCP on stdin/stdout; add it to an MCP client rather than running it by hand."
  ),
  Command.withSubcommands(subcommands)
)

/** Parse `argv` (process.argv shape) and run the chosen command. */
export const runCli = (argv: ReadonlyArray<string>) =>
  Command.run(termpilot, { name: "termpilot", version: packageVersion() })(argv).pipe(exitCodeOnCliExit)
