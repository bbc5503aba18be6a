/**
 * The `termpilot` command line (spec only; bin.ts runs it). No subcommand = the stdio MCP server.
 * To add a subcommand, define it in its own module and append it to `subcommands` below. bin.ts
 * loads this module only for command lines other than the plain server (see RunServer.ts).
 */
import { Command, Options, ValidationError } from "@effect/cli"
import { packageVersion } from "../layers/PackageRoot.js"
import { chatgptCommand, exitCodeOnCliExit } from "./chatgpt/ChatgptCommand.js"
import { doctorCommand } from "./DoctorCommand.js"
import { runServer } from "./RunServer.js"
import { shellIntegrationCommand } from "./ShellIntegrationCommand.js"

const readOnly = Options.boolean("read-only").pipe(
  Options.withDescription(
    "Read-only mode: run_command, interrupt_command and send_keys are not offered and nothing is ever typed into a terminal " +
      '(also: TERMPILOT_READ_ONLY=1, or "readOnly": true in the config file).'
  )
)

const approval = Options.choice("approval", ["never", "risky", "always"]).pipe(
  Options.optional,
  Options.withDescription(
    "When to ask you (through the MCP client's dialog) before typing: never (default), risky (listed risky " +
      "commands and protected sessions), always. send_keys always asks " +
      '(also: TERMPILOT_APPROVAL, or "approval": {"policy": …} in the config file).'
  )
)

const serve = Command.make("serve", { readOnly, approval }, runServer).pipe(
  Command.withDescription("Run the stdio MCP server (what `termpilot` with no subcommand does).")
)

/** Every subcommand of `termpilot`; one line per subcommand. */
export const subcommands = [serve, doctorCommand, chatgptCommand, shellIntegrationCommand] as const

export const termpilot = Command.make("termpilot", { readOnly, approval }, runServer).pipe(
  Command.withDescription(
    "MCP server that lets an AI assistant read and run commands in your open terminal sessions. " +
      "With no subcommand it serves MCP on stdin/stdout; add it to an MCP client rather than running it by hand."
  ),
  Command.withSubcommands(subcommands)
)

/** Parse `argv` (process.argv shape) and run the chosen command. */
export const runCli = (argv: ReadonlyArray<string>) =>
  Command.run(termpilot, { name: "termpilot", version: packageVersion() })(argv).pipe(exitCodeOnCliExit)

/** A failure the command line has already reported to the user (a parse or validation error). */
export const reportedByCli = (error: unknown): boolean => ValidationError.isValidationError(error)
