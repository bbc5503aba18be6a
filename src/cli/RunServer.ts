/**
 * The stdio MCP server with what the command line forces on top of the environment and config
 * file, and the argument lists that mean nothing but "serve" (what an MCP client starts): bin.ts
 * runs those without loading the command-line parser, the subcommands or their help.
 */
import { Effect, Option } from "effect"
import type { ApprovalAskIn, ApprovalPolicyName } from "../domain/ApprovalPolicy.js"
import { mainLive } from "../layers/app/MainLive.js"
import { AppConfig } from "../services/AppConfig.js"
import { serveStdio } from "./Serve.js"

export interface ServerFlags {
  readonly readOnly: boolean
  /** `--approval`, when given. */
  readonly approval?: Option.Option<ApprovalPolicyName>
  /** `--approval-ask-in`, when given. */
  readonly approvalAskIn?: Option.Option<ApprovalAskIn>
}

/** The stdio MCP server (what `termpilot` with no subcommand, and `termpilot serve`, run). */
export const runServer = ({ readOnly, approval, approvalAskIn }: ServerFlags) => {
  const policy = approval === undefined ? undefined : Option.getOrUndefined(approval)
  const askIn = approvalAskIn === undefined ? undefined : Option.getOrUndefined(approvalAskIn)
  return Effect.flatMap(AppConfig, ({ settings }) =>
    serveStdio({ readOnly: settings.readOnly, approval: settings.approval })
  ).pipe(
    Effect.provide(
      mainLive({
        readOnly,
        ...(policy === undefined ? {} : { approval: policy }),
        ...(askIn === undefined ? {} : { approvalAskIn: askIn })
      })
    )
  )
}

/**
 * The flags when `args` (argv without node and the script) asks for the server and nothing else:
 * none, `--read-only`, `serve`, `serve --read-only`. Anything else (help, version, subcommands,
 * a typo) is for the full command line, which parses and reports it.
 */
export const serverOnlyArgs = (args: ReadonlyArray<string>): ServerFlags | undefined => {
  const rest = args[0] === "serve" ? args.slice(1) : args
  if (rest.length === 0) return { readOnly: false }
  if (rest.length === 1 && rest[0] === "--read-only") return { readOnly: true }
  return undefined
}
