/**
 * The MCP server factory: the SDK's low-level `Server` with tools/list and tools/call wired to the
 * tool registry, `instructions` describing the normal flow, and tool calls run through the given
 * runner (a ManagedRuntime or the CLI's runtime) so handlers see the backend services, each with
 * its CallControl (the client's cancellation and progressToken) and its Approver. One factory
 * serves both protocol eras (`serveStdio` picks one per connection): on the legacy eras an approval
 * is an `elicitation/create` while the call waits; on 2026-07-28 the call answers `input_required`
 * with the same form and a request state bound to it (ApprovalState), and the client's retry
 * carries the answer.
 */
import {
  type CallToolRequest,
  type CallToolResult,
  type ElicitResult,
  type InputRequiredResult,
  inputRequired,
  type jsonSchemaValidator,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext
} from "@modelcontextprotocol/server"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv"
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
import { type ApprovalStates, makeApprovalStates } from "./ApprovalState.js"
import { SERVER_INSTRUCTIONS } from "./Descriptions.js"
import {
  type ApprovalClient,
  approvalForm,
  makeApprover,
  makeRoundTripApprover,
  type RetryAnswer
} from "./McpApprover.js"
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
  /** The protocol era this instance serves (serveStdio's factory says); defaults to legacy. */
  readonly era?: "legacy" | "modern"
  /** Where 2026-07-28 approval states are minted and checked; defaults to this process's. */
  readonly approvalStates?: ApprovalStates
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

/** This process's approval states: one key and one set of answered nonces for every connection. */
const processApprovalStates = makeApprovalStates()

/** Where the question goes in an `input_required` result, and where the retry's answer is read. */
export const APPROVAL_INPUT_KEY = "approval"

/** Lists change with the sessions behind them: clients are told not to keep them (2026-07-28). */
const NO_CACHE = { ttlMs: 0, cacheScope: "private" } as const

const ANSWERS: ReadonlyArray<string> = ["accept", "decline", "cancel"]

/** The action of the retry's answer, when it carries a well-formed one. */
const answerIn = (responses: Record<string, unknown> | undefined): ElicitResult["action"] | undefined => {
  const response = responses?.[APPROVAL_INPUT_KEY]
  if (response === null || typeof response !== "object") return undefined
  const action = (response as { readonly action?: unknown }).action
  return typeof action === "string" && ANSWERS.includes(action)
    ? (action as ElicitResult["action"])
    : undefined
}

/** The client as a 2026-07-28 request declares it, in its `_meta` envelope. */
const envelopeClient = (ctx: ServerContext): ApprovalClient => {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>
  return {
    capabilities: envelope["io.modelcontextprotocol/clientCapabilities"] as ApprovalClient["capabilities"],
    info: envelope["io.modelcontextprotocol/clientInfo"] as ApprovalClient["info"]
  }
}

const invalidRetry = (why: string): CallToolResult =>
  errorResult(
    "invalid_request",
    `This retry's approval was refused: its requestState is not valid for this call (${why}); nothing was sent. Call the tool again without requestState to be asked anew.`
  )

/** A fresh, unconnected MCP Server; connect it to a transport with `server.connect(transport)`. */
export const makeServer = (run: ToolRunner, options: ServerOptions = {}): Server => {
  const tools = options.tools ?? toolRegistry()
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  const approval = options.approval ?? DEFAULT_APPROVAL_CONFIG
  const states = options.approvalStates ?? processApprovalStates
  const modern = options.era === "modern"
  const server = new Server(
    { name: SERVER_NAME, title: "TermPilot", version: options.version ?? packageVersion() },
    {
      capabilities: { tools: {} },
      jsonSchemaValidator: validatorOnFirstUse(),
      cacheHints: { "tools/list": NO_CACHE, "server/discover": NO_CACHE },
      // Legacy eras ask with elicitation/create while the call waits (as before); the SDK's shim
      // that would turn input_required into server-side rounds is not used.
      inputRequired: { legacyShim: false },
      instructions: tools.some((tool) => !tool.readOnly)
        ? `${SERVER_INSTRUCTIONS} ${approvalNote(approval)}`
        : `${SERVER_INSTRUCTIONS} ${READ_ONLY_NOTE}`
    }
  )

  /** Runs the tool with this call's CallControl and Approver; never rejects. */
  const runTool = async (
    tool: RegisteredTool,
    request: CallToolRequest,
    ctx: ServerContext,
    approver: Approver["Service"]
  ): Promise<CallToolResult> => {
    const call = makeCallControl({
      signal: ctx.mcpReq.signal,
      _meta: ctx.mcpReq._meta,
      sendNotification: (notification) => ctx.mcpReq.notify(notification)
    })
    const program = tool
      .call(request.params.arguments)
      .pipe(Effect.provideService(CallControl, call.control), Effect.provideService(Approver, approver))
    try {
      // A "self" tool sees the cancellation through CallControl and ends normally (and is audited);
      // any other tool is interrupted. The SDK drops the answer of a cancelled request either way.
      const exit = await run(program, tool.cancellation === "self" ? undefined : ctx.mcpReq.signal)
      // The adapter never fails; only an interruption (the client cancelled) or a runtime that
      // could not be built lands here.
      return Exit.isSuccess(exit) ? exit.value : errorResult("internal_error", INTERNAL_ERROR_MESSAGE)
    } finally {
      call.close()
    }
  }

  /**
   * 2026-07-28: a retry must bring back a state minted for this very call; an answer counts only
   * for the message it was given for. A call that asks ends with `input_required` (the gate has
   * refused it: nothing was sent) carrying the form and a fresh state.
   */
  const callModern = async (
    tool: RegisteredTool,
    request: CallToolRequest,
    ctx: ServerContext
  ): Promise<CallToolResult | InputRequiredResult> => {
    const binding = { tool: tool.name, args: request.params.arguments ?? {} }
    const state = ctx.mcpReq.requestState<unknown>()
    let answer: RetryAnswer | undefined
    if (state !== undefined) {
      if (typeof state !== "string") return invalidRetry("it is not a string")
      const checked = states.check(state, binding)
      if (checked._tag === "Invalid") return invalidRetry(checked.why)
      const action = answerIn(ctx.mcpReq.inputResponses)
      if (action === undefined) return invalidRetry(`inputResponses.${APPROVAL_INPUT_KEY} carries no answer`)
      answer = { messageDigest: checked.messageDigest, action: checked.expired ? "expired" : action }
    }
    const roundTrip = makeRoundTripApprover(envelopeClient(ctx), answer)
    const result = await runTool(tool, request, ctx, roundTrip.approver)
    const asked = roundTrip.asked()
    if (asked === undefined) return result
    return inputRequired({
      inputRequests: { [APPROVAL_INPUT_KEY]: inputRequired.elicit(approvalForm(asked)) },
      requestState: states.mint(binding, asked, approval.timeoutSeconds * 1000)
    })
  }

  server.setRequestHandler("tools/list", () => ({ tools: tools.map((tool) => tool.definition) }))
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const tool = byName.get(request.params.name)
    if (tool === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`)
    if (modern) return callModern(tool, request, ctx)
    const approver = makeApprover(
      { capabilities: server.getClientCapabilities(), info: server.getClientVersion() },
      { send: (elicit, sendOptions) => ctx.mcpReq.send(elicit, sendOptions) }
    )
    return runTool(tool, request, ctx, approver)
  })
  return server
}
