/**
 * The tool registry: every tool with its published MCP definition (JSON Schemas derived from its
 * Effect Schemas) and its call, bound to the one adapter. Read-only mode keeps only tools whose
 * readOnlyHint is true.
 */
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import { type Effect, JSONSchema, Schema } from "effect"
import { callTool, ToolError } from "./Adapter.js"
import { getCommandResult } from "./GetCommandResult.js"
import { getCurrentSession } from "./GetCurrentSession.js"
import { interruptCommand } from "./InterruptCommand.js"
import { listSessions } from "./ListSessions.js"
import { readTerminal } from "./ReadTerminal.js"
import { runCommand } from "./RunCommand.js"
import type { Tool, ToolServices } from "./Tool.js"
import { waitForOutput } from "./WaitForOutput.js"

export interface RegisteredTool {
  readonly name: string
  readonly readOnly: boolean
  /** What the client's cancellation does to a call (Tool.cancellation). */
  readonly cancellation: "interrupt" | "self"
  /** The entry `tools/list` returns. */
  readonly definition: McpTool
  readonly call: (args: unknown) => Effect.Effect<CallToolResult, never, ToolServices>
}

type JsonObject = { [key: string]: unknown }

/** Drop the `title` strings Effect derives from refinements ("between(1, 2000)"): noise to a model. */
const withoutDerivedTitles = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutDerivedTitles)
  if (value === null || typeof value !== "object") return value
  const out: JsonObject = {}
  for (const [key, inner] of Object.entries(value)) {
    if (key === "title" && typeof inner === "string") continue
    out[key] = withoutDerivedTitles(inner)
  }
  return out
}

const jsonSchema = <A, I>(schema: Schema.Schema<A, I>): JsonObject =>
  withoutDerivedTitles(JSONSchema.make(schema)) as JsonObject

/** Publish a tool: input as-is; output as "the tool's output or a {error_code, message} error". */
export const register = <I, IE, O, OE>(tool: Tool<I, IE, O, OE>): RegisteredTool => {
  const input = jsonSchema(tool.input)
  const output = jsonSchema(Schema.Union(tool.output, ToolError))
  return {
    name: tool.name,
    readOnly: tool.annotations.readOnlyHint,
    cancellation: tool.cancellation ?? "interrupt",
    definition: {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: { ...input, type: "object" },
      outputSchema: { ...output, type: "object" },
      annotations: { title: tool.title, ...tool.annotations }
    },
    call: (args) => callTool(tool, args)
  }
}

export interface RegistryOptions {
  /** Publish only read-only tools (run_command and interrupt_command disappear). */
  readonly readOnly?: boolean
}

/** Every tool, in a fixed order (tools/list is deterministic). */
export const toolRegistry = (options: RegistryOptions = {}): ReadonlyArray<RegisteredTool> => {
  const all = [
    register(listSessions),
    register(getCurrentSession),
    register(readTerminal),
    register(runCommand),
    register(getCommandResult),
    register(interruptCommand),
    register(waitForOutput)
  ]
  return options.readOnly === true ? all.filter((tool) => tool.readOnly) : all
}
