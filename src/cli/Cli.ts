/**
 * The `termpilot` command line (spec only; bin.ts runs it). No subcommand = the stdio MCP server.
 * To add a subcommand, define it in its own module and append it to `subcommands` below. bin.ts
 * loads this module only for command lines other than the plain server (see RunServer.ts).
 * How it is presented: the version, then effect/cli's help layout (colour as Colour.ts allows);
 * `--version` prints the bare version; a command line that does not parse gets one line per
 * problem on stderr (nothing on stdout, exit code 1), worded as @effect/cli did where it can be.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Layer } from "effect"
import { CliConfig, CliError, CliOutput, Command, Flag, GlobalFlag } from "effect/cli"
import { packageVersion } from "../installation/PackageRoot.js"
import { colourStreams } from "./Colour.js"
import { chatgptCommand, exitCodeOnCliExit } from "./chatgpt/ChatgptCommand.js"
import { doctorCommand } from "./DoctorCommand.js"
import { runServer } from "./RunServer.js"
import { shellIntegrationCommand } from "./ShellIntegrationCommand.js"

const readOnly = Flag.Boolean("read-only").pipe(
  Flag.withDescription(
    "Read-only mode: run_command, interrupt_command and send_keys are not offered and nothing is ever typed into a terminal " +
      '(also: TERMPILOT_READ_ONLY=1, or "readOnly": true in the config file).'
  ),
  Flag.withDefault(false)
)

const approval = Flag.Literals("approval", ["never", "risky", "always"]).pipe(
  Flag.withDescription(
    "When to ask you (see --approval-ask-in for where) before typing: never (default), risky (listed risky " +
      "commands and protected sessions), always. send_keys always asks " +
      '(also: TERMPILOT_APPROVAL, or "approval": {"policy": …} in the config file).'
  ),
  Flag.withMetavar("<never|risky|always>"),
  Flag.optional
)

const approvalAskIn = Flag.Literals("approval-ask-in", ["client", "terminal", "auto"]).pipe(
  Flag.withDescription(
    "Where an approval is asked: client (the MCP client's dialog), terminal (a prompt on your own attached " +
      "tmux client, or iTerm2's alert), auto (default: the client's dialog when the client has one, your terminal otherwise) " +
      '(also: TERMPILOT_APPROVAL_ASK_IN, or "approval": {"askIn": …} in the config file).'
  ),
  Flag.withMetavar("<client|terminal|auto>"),
  Flag.optional
)

const serve = Command.make("serve", { readOnly, approval, approvalAskIn }, runServer).pipe(
  Command.withDescription("Run the stdio MCP server (what `termpilot` with no subcommand does).")
)

/** Every subcommand of `termpilot`; one line per subcommand. */
export const subcommands = [serve, doctorCommand, chatgptCommand, shellIntegrationCommand] as const

export const termpilot = Command.make("termpilot", { readOnly, approval, approvalAskIn }, runServer).pipe(
  Command.withDescription(
    "MCP server that lets an AI assistant read and run commands in your open terminal sessions. " +
      "With no subcommand it serves MCP on stdin/stdout; add it to an MCP client rather than running it by hand."
  ),
  Command.withSubcommands(subcommands)
)

/** effect/cli's built-in `--version` without the `-v` alias it adds: TermPilot never had `-v`. */
const version = GlobalFlag.Action({
  flag: Flag.Boolean("version").pipe(
    Flag.withDescription("Show version information"),
    Flag.withDefault(false)
  ),
  run: GlobalFlag.Version.run
})

/** The wording TermPilot has always used for these problems; any other as effect/cli words it. */
const problemLine = (error: CliError.NonShowHelpErrors): string => {
  switch (error._tag) {
    case "UnknownSubcommand":
      return `Invalid subcommand for ${(error.parent ?? ["termpilot"]).join(" ")} - use one of ${subcommandNames(error.parent)}`
    case "UnrecognizedOption":
      return `Received unknown argument: '${error.option}'`
    case "UnexpectedArgument":
      return error.arguments.map((argument) => `Received unknown argument: '${argument}'`).join("\n")
    case "MissingOption":
      return `Expected to find option: '--${error.option}'`
    default:
      return error.message
  }
}

/** `'a', 'b', …`: the subcommands under `path` (the root's by default). */
const subcommandNames = (path: ReadonlyArray<string> | undefined): string => {
  let command: Command.Command.Any = termpilot
  for (const name of (path ?? []).slice(1)) {
    const next = command.subcommands.flatMap((group) => group.commands).find((c) => c.name === name)
    if (next === undefined) break
    command = next
  }
  return command.subcommands
    .flatMap((group) => group.commands)
    .map((c) => `'${c.name}'`)
    .join(", ")
}

/**
 * How the command line presents itself: help on stdout, the bare version on stdout, and a command
 * line that does not parse as its problems alone on stderr (stdout may be an MCP client's pipe).
 */
const presentation = Effect.map(colourStreams, (colour) => {
  const formatter = CliOutput.defaultFormatter({ colors: colour.stdout || colour.stderr })
  const presenter: CliOutput.Presenter = {
    present: (event) => {
      switch (event._tag) {
        case "Help":
          return Console.log(`termpilot ${packageVersion()}\n\n${formatter.formatHelpDoc(event.helpDoc)}`)
        case "Version":
          return Console.log(event.version)
        case "InvalidInvocation":
          return Console.error(`${event.errors.map(problemLine).join("\n")}\n`)
      }
    }
  }
  return Layer.mergeAll(
    CliOutput.layer(formatter),
    CliOutput.layerPresenter(presenter),
    CliConfig.layer({
      builtIns: [GlobalFlag.Help, version, GlobalFlag.Wizard, GlobalFlag.Completions, GlobalFlag.LogLevel]
    })
  )
})

/** Parse `argv` (process.argv shape) and run the chosen command. */
export const runCli = (argv: ReadonlyArray<string>) =>
  Command.runWith(termpilot, { version: packageVersion() })(argv.slice(2)).pipe(
    Effect.provide(Layer.unwrap(presentation)),
    exitCodeOnCliExit,
    // Node's services for the subcommands (the plain server needs fewer: MainLive's ServerPlatform).
    Effect.provide(NodeServices.layer)
  )

/** A failure the command line has already reported to the user (a parse or validation error). */
export const reportedByCli = (error: unknown): boolean => CliError.isCliError(error)
