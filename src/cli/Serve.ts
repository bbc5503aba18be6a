/**
 * The stdio MCP server as an Effect: the SDK's `serveStdio` on stdin/stdout, serving until stdin
 * closes (or the process is interrupted). It serves both protocol eras on the one connection: a
 * 2026-07-28 opening (`server/discover`, or a request carrying its `_meta` envelope) or the legacy
 * `initialize` handshake, each with a server instance from the same factory (makeServer). stdout
 * carries JSON-RPC only; the hint for a person who started it in a terminal goes to stderr. Every
 * request is answered, malformed ones included (CheckedStdioTransport, given to serveStdio).
 */
import { serveStdio as serveMcpStdio } from "@modelcontextprotocol/server/stdio"
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
      const onProblem = (problem: string) =>
        Effect.runForkWith(context)(Effect.logWarning(`ignored input: ${problem}`))
      yield* Effect.acquireRelease(
        Effect.sync(() =>
          serveMcpStdio(
            ({ era }) =>
              makeServer(
                run,
                options.approval === undefined ? { tools, era } : { tools, era, approval: options.approval }
              ),
            {
              transport: new CheckedStdioTransport({ onProblem }),
              onerror: (error) => onProblem(error.message)
            }
          )
        ),
        (handle) => Effect.promise(() => handle.close())
      )
      yield* Effect.logDebug(`MCP server listening on stdio${options.readOnly ? " (read-only)" : ""}`)
      yield* stdinClosed
    })
  )
