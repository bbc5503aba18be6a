/**
 * The stdio MCP server as an Effect: connect a fresh server to stdin/stdout and serve until stdin
 * closes (or the process is interrupted). stdout carries JSON-RPC only; the hint for a person who
 * started it in a terminal goes to stderr. Every request is answered, malformed ones included
 * (CheckedStdioTransport).
 */
import { Console, Effect } from "effect"
import type { ApprovalConfig } from "../domain/ApprovalPolicy.js"
import { toolRegistry } from "../tools/Registry.js"
import { makeServer, type ToolRunner } from "../tools/Server.js"
import type { ToolServices } from "../tools/Tool.js"
import { CheckedStdioTransport } from "./StdioTransport.js"

export const TTY_HINT = [
  "termpilot: this is an MCP server speaking JSON-RPC on stdin/stdout; it is not interactive.",
  "Add it to an MCP client instead, e.g. Claude Code: `claude mcp add termpilot -- termpilot`,",
  'or a JSON config: { "mcpServers": { "termpilot": { "command": "termpilot" } } }.',
  "Run `termpilot --help` for the other commands. Press Ctrl-D or Ctrl-C to quit."
].join("\n")

/** Resolves once stdin has ended or closed. */
const stdinClosed = Effect.callback<void>((resume) => {
  const done = () => resume(Effect.void)
  process.stdin.once("end", done)
  process.stdin.once("close", done)
  return Effect.sync(() => {
    process.stdin.off("end", done)
    process.stdin.off("close", done)
  })
})

export interface ServeOptions {
  /** Read-only mode: run_command, interrupt_command and send_keys are neither listed nor callable. */
  readonly readOnly: boolean
  /** The approval settings in force (named in the server's instructions). */
  readonly approval?: ApprovalConfig
}

export const serveStdio = (options: ServeOptions): Effect.Effect<void, never, ToolServices> =>
  Effect.scoped(
    Effect.gen(function* () {
      if (process.stdin.isTTY === true) yield* Console.error(TTY_HINT)
      const context = yield* Effect.context<ToolServices>()
      const run: ToolRunner = (effect, signal) =>
        Effect.runPromiseExitWith(context)(effect, signal === undefined ? undefined : { signal })
      const tools = toolRegistry({ readOnly: options.readOnly })
      const server = makeServer(
        run,
        options.approval === undefined ? { tools } : { tools, approval: options.approval }
      )
      yield* Effect.acquireRelease(
        Effect.promise(() =>
          server.connect(
            new CheckedStdioTransport({
              onProblem: (problem) =>
                Effect.runForkWith(context)(Effect.logWarning(`ignored input: ${problem}`))
            })
          )
        ),
        () => Effect.promise(() => server.close())
      )
      yield* Effect.logDebug(`MCP server listening on stdio${options.readOnly ? " (read-only)" : ""}`)
      yield* stdinClosed
    })
  )
