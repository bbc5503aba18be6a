/**
 * The tool registry: every tool with its published MCP definition (JSON Schemas derived from its
 * Effect Schemas) and its call, bound to the one adapter. Read-only mode keeps only tools whose
 * readOnlyHint is true.
 */
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/server"
import { type Effect, JsonSchema, Schema } from "effect"
import { callTool, ToolError } from "./Adapter.js"
import { getCommandResult } from "./GetCommandResult.js"
import { getCurrentSession } from "./GetCurrentSession.js"
import { interruptCommand } from "./InterruptCommand.js"
import { listCommands } from "./ListCommands.js"
import { listSessions } from "./ListSessions.js"
import { readCommandOutput } from "./ReadCommandOutput.js"
import { readTerminal } from "./ReadTerminal.js"
import { runCommand } from "./RunCommand.js"
import { sendKeysTool } from "./SendKeys.js"
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

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/**
 * The branch Effect adds beside `{"type": "number"}` for a plain Schema.Number: the strings its JSON
 * codec uses for NaN and ±Infinity. Tool results are encoded with the schema itself and sent with
 * JSON.stringify, so those strings never occur: what is sent there is a number.
 */
const isNonFiniteBranch = (value: unknown): boolean =>
  isObject(value) &&
  value.type === "string" &&
  Array.isArray(value.enum) &&
  value.enum.length === 3 &&
  ["NaN", "Infinity", "-Infinity"].every((name) => (value.enum as ReadonlyArray<unknown>).includes(name)) &&
  Object.keys(value).length === 2

/**
 * The published form of a generated schema: without `title` strings (noise to a model; none are
 * meant to be published) and with "a number or the strings NaN/±Infinity" as just a number.
 */
const published = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(published)
  if (!isObject(value)) return value
  const out: JsonObject = {}
  for (const [key, inner] of Object.entries(value)) {
    if (key === "title" && typeof inner === "string") continue
    out[key] = published(inner)
  }
  const anyOf = out.anyOf
  if (
    Array.isArray(anyOf) &&
    anyOf.some(
      (branch) => isObject(branch) && branch.type === "number" && Object.keys(branch).length === 1
    ) &&
    anyOf.some(isNonFiniteBranch)
  ) {
    const branches = anyOf.filter((branch) => !isNonFiniteBranch(branch))
    if (branches.length > 1) return { ...out, anyOf: branches }
    const { anyOf: _, ...rest } = out
    return { ...(branches[0] as JsonObject), ...rest }
  }
  return out
}

/** The draft-07 JSON Schema of a tool Schema (MCP's dialect; undeclared properties refused). */
const jsonSchema = (schema: Schema.Top): JsonObject => {
  const document = JsonSchema.toDocumentDraft07(
    Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  )
  const definitions =
    Object.keys(document.definitions).length === 0 ? {} : { definitions: document.definitions }
  return published({
    $schema: JsonSchema.META_SCHEMA_URI_DRAFT_07,
    ...document.schema,
    ...definitions
  }) as JsonObject
}

/** Publish a tool: input as-is; output as "the tool's output or a {error_code, message} error". */
export const register = <I, IE, O, OE>(tool: Tool<I, IE, O, OE>): RegisteredTool => {
  const input = jsonSchema(tool.input)
  const output = jsonSchema(Schema.Union([tool.output, ToolError]))
  return {
    name: tool.name,
    readOnly: tool.annotations.readOnlyHint,
    cancellation: tool.cancellation ?? "interrupt",
    definition: {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      // A tool without arguments still publishes (empty) properties and required.
      inputSchema: { properties: {}, required: [], ...input, type: "object" },
      outputSchema: { ...output, type: "object" },
      annotations: { title: tool.title, ...tool.annotations }
    },
    call: (args) => callTool(tool, args)
  }
}

export interface RegistryOptions {
  /** Publish only read-only tools (run_command, interrupt_command and send_keys disappear). */
  readonly readOnly?: boolean
}

/** Every tool, in a fixed order (tools/list is deterministic). */
export const toolRegistry = (options: RegistryOptions = {}): ReadonlyArray<RegisteredTool> => {
  const all = [
    register(listSessions),
    register(getCurrentSession),
    register(readTerminal),
    register(listCommands),
    register(readCommandOutput),
    register(runCommand),
    register(getCommandResult),
    register(interruptCommand),
    register(waitForOutput),
    register(sendKeysTool)
  ]
  return options.readOnly === true ? all.filter((tool) => tool.readOnly) : all
}
