/**
 * ToolSettings — how the tools treat what they return to the model. When no layer provides it,
 * the safe defaults apply (secrets are redacted).
 */
import { Context } from "effect"

export interface ToolSettingsShape {
  /** Replace recognised secrets in terminal content and command output with `[REDACTED:kind]`. */
  readonly redactSecrets: boolean
}

export const DEFAULT_TOOL_SETTINGS: ToolSettingsShape = { redactSecrets: true }

export class ToolSettings extends Context.Tag("termpilot/ToolSettings")<ToolSettings, ToolSettingsShape>() {}
