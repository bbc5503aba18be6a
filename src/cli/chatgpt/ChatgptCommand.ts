/**
 * `termpilot chatgpt …` — connect TermPilot to ChatGPT through OpenAI Secure MCP Tunnel by
 * driving OpenAI's `tunnel-client` (setup, status, doctor, disconnect). Mount with
 * `Command.withSubcommands([chatgptCommand])`; map `CliExit` to the process exit code.
 */
import { Effect } from "effect"
import { Command } from "effect/cli"
import { disconnectCommand } from "./Disconnect.js"
import { doctorCommand } from "./Doctor.js"
import type { McpLaunch } from "./McpCommand.js"
import { CliExit, emit, refusal } from "./Outcome.js"
import { makeSetupCommand } from "./Setup.js"
import { statusCommand } from "./Status.js"

/** The `chatgpt` command; `launch` overrides what setup asks tunnel-client to run (tests). */
export const makeChatgptCommand = (launch?: McpLaunch) =>
  Command.make("chatgpt", {}, () =>
    emit(
      refusal("missing_subcommand", "choose one of: setup, status, doctor, disconnect (see --help)."),
      false
    )
  ).pipe(
    Command.withDescription("Connect TermPilot to ChatGPT through OpenAI Secure MCP Tunnel."),
    Command.withSubcommands([makeSetupCommand(launch), statusCommand, doctorCommand, disconnectCommand])
  )

export const chatgptCommand = makeChatgptCommand()

/** For the bin entry: turns `CliExit` (already reported) into `process.exitCode`, silently. */
export const exitCodeOnCliExit = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    self,
    (error): error is E & CliExit => error instanceof CliExit,
    (exit) =>
      Effect.sync(() => {
        process.exitCode = exit.code
      })
  )

export { CliExit }
