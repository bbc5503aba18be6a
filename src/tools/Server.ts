/**
 * The MCP server factory: the SDK's low-level `Server` with tools/list and tools/call wired to the
 * tool registry, `instructions` describing the normal flow, and tool calls run through the given
 * runner (a ManagedRuntime or the CLI's runtime) so handlers see the backend services, each with
 * its CallControl (the client's cancellation and progressToken) and its Approver (elicitation to
 * the client that made the call).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError
} from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import { Effect, Exit } from "effect"
import {
  type ApprovalConfig,
  DEFAULT_APPROVAL_CONFIG,
  describeApprovalPolicy
} from "../domain/ApprovalPolicy.js"
import { packageVersion } from "../installation/PackageRoot.js"
import { Approver } from "../services/Approver.js"
import { CallControl } from "../services/CallControl.js"
import { errorResult, INTERNAL_ERROR_MESSAGE } from "./Adapter.js"
import { SERVER_INSTRUCTIONS } from "./Descriptions.js"
import { makeApprover } from "./McpApprover.js"
import { makeCallControl } from "./McpCallControl.js"
import { type RegisteredTool, toolRegistry } from "./Registry.js"
import type { ToolServices } from "./Tool.js"

/**
 * Runs a tool program to its Exit; `signal` (given for tools with `cancellation: "interrupt"`)
 * aborts it when the client cancels the request. A ManagedRuntime fits (its layer's build error
 * may show up in the Exit, hence `unknown`).
 */
export type ToolRunner = <A, E>(
  effect: Effect.Effect<A, E, ToolServices>,
  signal?: AbortSignal
) => Promise<Exit.Exit<A, unknown>>

export interface ServerOptions {
  /** Tools to publish; defaults to the full registry. */
  readonly tools?: ReadonlyArray<RegisteredTool>
  /** Reported as serverInfo.version; defaults to package.json's version. */
  readonly version?: string
  /** The approval settings in force, named in the instructions; defaults to the defaults. */
  readonly approval?: ApprovalConfig
}

export const SERVER_NAME = "termpilot"

/** Added to the instructions when no tool can write (read-only mode). */
export const READ_ONLY_NOTE =
  "This TermPilot runs read-only: run_command and interrupt_command are not available, nor is send_keys, so " +
  "tell the user to run (or stop) commands themselves."

/** Added to the instructions when tools can write: which approval policy is in force. */
export const approvalNote = (approval: ApprovalConfig): string =>
  `In force: ${describeApprovalPolicy(approval)}. When TermPilot asks, the user answers in your client's ` +
  "dialog or in a prompt on their own terminal; a result with error_code declined_by_user means the user said no: do not retry it, ask the user. " +
  "send_keys (for a program that is not at a prompt: a [y/N] question, a pager, a REPL) always asks first."

/**
 * The SDK checks an answer to an approval form against the form's schema with ajv. Its validator
 * (an Ajv instance with every string format compiled) is built on the first check instead of at
 * start: most sessions never ask (issue 23, memory).
 */
const validatorOnFirstUse = (): jsonSchemaValidator => {
  let ajv: AjvJsonSchemaValidator | undefined
  return {
    getValidator: (schema) => {
      ajv ??= new AjvJsonSchemaValidator()
      return ajv.getValidator(schema)
    }
  }
}

/** A fresh, unconnected MCP Server; connect it to a transport with `server.connect(transport)`. */
export const makeServer = (run: ToolRunner, options: ServerOptions = {}): Server => {
  const tools = options.tools ?? toolRegistry()
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  const server = new Server(
    { name: SERVER_NAME, title: "TermPilot", version: options.version ?? packageVersion() },
    {
      capabilities: { tools: {} },
      jsonSchemaValidator: validatorOnFirstUse(),
      instructions: tools.some((tool) => !tool.readOnly)
        ? `${SERVER_INSTRUCTIONS} ${approvalNote(options.approval ?? DEFAULT_APPROVAL_CONFIG)}`
        : `${SERVER_INSTRUCTIONS} ${READ_ONLY_NOTE}`
    }
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => tool.definition) }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name)
    if (tool === undefined)
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`)
    const call = makeCallControl(extra)
    const approver = makeApprover(
      { capabilities: server.getClientCapabilities(), info: server.getClientVersion() },
      extra
    )
    const program = tool
      .call(request.params.arguments)
      .pipe(Effect.provideService(CallControl, call.control), Effect.provideService(Approver, approver))
    try {
      // A "self" tool sees the cancellation through CallControl and ends normally (and is audited);
      // any other tool is interrupted. The SDK drops the answer of a cancelled request either way.
      const exit = await run(program, tool.cancellation === "self" ? undefined : extra.signal)
      // The adapter never fails; only an interruption (the client cancelled) or a runtime that
      // could not be built lands here.
      return Exit.isSuccess(exit) ? exit.value : errorResult("internal_error", INTERNAL_ERROR_MESSAGE)
    } finally {
      call.close()
    }
  })
  return server
}
