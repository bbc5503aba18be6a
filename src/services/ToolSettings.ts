/**
 * ToolSettings — how the tools treat what they return to the model. When no layer provides it,
 * the safe defaults apply (secrets are redacted).
 */
import { Context, Effect, Option } from "effect"
import type { ApprovalConfig } from "../domain/ApprovalPolicy.js"
import { DEFAULT_TOOL_DEADLINE_MS } from "../domain/ConfigFile.js"

export interface ToolSettingsShape {
  /** Replace recognised secrets in terminal content and command output with `[REDACTED:kind]`. */
  readonly redactSecrets: boolean
  /**
   * Every tool call answers within this many milliseconds; run_command within it until the text
   * is sent (then `timeout_seconds` governs the wait), get_command_result within its wait_seconds.
   */
  readonly deadlineMs: number
  /** When to ask the person before typing (src/domain/ApprovalPolicy.ts); absent: the defaults. */
  readonly approval?: ApprovalConfig
}

export const DEFAULT_TOOL_SETTINGS: ToolSettingsShape = {
  redactSecrets: true,
  deadlineMs: DEFAULT_TOOL_DEADLINE_MS
}

export class ToolSettings extends Context.Service<ToolSettings, ToolSettingsShape>()(
  "termpilot/ToolSettings"
) {}

/** The ToolSettings in force: the provided ones, or the defaults. */
export const currentToolSettings: Effect.Effect<ToolSettingsShape> = Effect.map(
  Effect.serviceOption(ToolSettings),
  Option.getOrElse(() => DEFAULT_TOOL_SETTINGS)
)
