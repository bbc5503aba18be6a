/**
 * What a TermPilot MCP tool is: plain data (name, title, description, annotations, one input and
 * one output Schema) plus an Effect handler over the backend services. The adapter (Adapter.ts)
 * is the only code that turns one into an MCP `CallToolResult`.
 */
import type { Effect, Schema } from "effect"
import type { TermPilotError } from "../domain/Errors.js"
import type { CommandRunner } from "../services/CommandRunner.js"
import type { PromptTracker } from "../services/PromptTracker.js"
import type { Terminal } from "../services/Terminal.js"

/** The services a tool handler may use: the contracts the composition root (src/layers/app) provides. */
export type ToolServices = Terminal | CommandRunner | PromptTracker

/** MCP tool annotations; all four hints are always set explicitly (unset hints mean "may destroy"). */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

/** Annotations of a tool that only observes: no writes, repeatable, closed world. */
export const readerAnnotations: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false
}

export interface Tool<I, IE, O, OE> {
  /** snake_case MCP tool name (stable; part of the contract). */
  readonly name: string
  readonly title: string
  readonly description: string
  readonly annotations: ToolAnnotations
  /** The one input Schema: decoding validates and fills defaults; JSON Schema is derived from it. */
  readonly input: Schema.Codec<I, IE>
  /** The one output Schema: the handler's value is encoded with it into `structuredContent`. */
  readonly output: Schema.Codec<O, OE>
  readonly handler: (input: I) => Effect.Effect<O, TermPilotError, ToolServices>
  /** A one-line human summary of a successful output (for the call's input), for the text content. */
  readonly summary: (output: O, input: I) => string
  /**
   * How the audit trail records a call: "command" (run_command, get_command_result,
   * interrupt_command: the result), "keys" (send_keys: what was typed) or, by default, "read" (the size and digest of what the model
   * was shown, see returnedText).
   */
  readonly audit?: "read" | "command" | "keys"
  /**
   * For a read: the terminal text the call returns, exactly (read_terminal: `content`), which the
   * audit trail digests. Without it the trail digests the result's JSON text block as sent.
   */
  readonly returnedText?: (output: O) => string
  /**
   * How the call deadline (ToolSettings.deadlineMs) applies: by default ("call") to the whole call;
   * "self" when the tool bounds itself (run_command: the runner holds its pre-send phase to the
   * deadline, then `timeout_seconds` governs; get_command_result: its `wait_seconds`).
   */
  readonly deadline?: "call" | "self"
  /**
   * What the client's cancellation (`notifications/cancelled`) does: by default ("interrupt") the
   * call is interrupted; "self" when the tool handles it through CallControl (the runner's waits
   * return at once), so the call still ends normally and is audited.
   */
  readonly cancellation?: "interrupt" | "self"
  /** Whether a successful output still reports a tool error (`isError: true`), e.g. a rejection. */
  readonly isErrorOutput?: (output: O) => boolean
}

/** Identity with inference: lets each tool module state its types once. */
export const defineTool = <I, IE, O, OE>(tool: Tool<I, IE, O, OE>): Tool<I, IE, O, OE> => tool
