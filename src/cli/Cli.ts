/**
 * The `termpilot` command line (spec only; bin.ts runs it). No subcommand = the stdio MCP server.
 * To add a subcommand, define it in its own module and append it to `subcommands` below.
 */
import { Command } from "@effect/cli"
import { Effect } from "effect"
import { MainLive } from "../layers/MainLive.js"
import { packageVersion } from "../tools/PackageVersion.js"
import { chatgptCommand, exitCodeOnCliExit } from "./chatgpt/ChatgptCommand.js"
import { doctorCommand } from "./DoctorCommand.js"
import { serveStdio } from "./Serve.js"

const runServer = serveStdio.pipe(Effect.provide(MainLive))

const serve = Command.make("serve", {}, () => runServer).pipe(
  Command.withDescription("Run the stdio MCP server (what `termpilot` with no subcommand does).")
)

/** Every subcommand of `termpilot`; one line per subcommand. */
export const subcommands = [serve, doctorCommand, chatgptCommand] as const

export const termpilot = Command.make("termpilot", {}, () => runServer).pipe(
  Command.withDescription(
    "MCP server that lets an AI assistant read and run commands in your open terminal sessions. " +
      "With no subcommand it serves MCP on stdin/stdout; add it to an MCP client rather than running it by hand."
  ),
  Command.withSubcommands(subcommands)
)

/** Parse `argv` (process.argv shape) and run the chosen command. */
export const runCli = (argv: ReadonlyArray<string>) =>
  Command.run(termpilot, { name: "termpilot", version: packageVersion() })(argv).pipe(exitCodeOnCliExit)
