/**
 * An AppConfig for tests: given iTerm2 settings, everything else as with no config file, except
 * that the audit trail is off unless a path is given; optionally overridden.
 */
import { Layer } from "effect"
import { DEFAULT_CONFIG, type TermPilotConfig } from "../../src/domain/ConfigFile.js"
import { AppConfig, type Iterm2Settings } from "../../src/services/AppConfig.js"

export const appConfigFor = (
  iterm2: Iterm2Settings,
  settings: Partial<TermPilotConfig> = {},
  auditPath?: string
): Layer.Layer<AppConfig> =>
  Layer.succeed(AppConfig, {
    iterm2,
    // No audit trail unless the test names a file for it.
    settings: {
      ...DEFAULT_CONFIG,
      audit: { ...DEFAULT_CONFIG.audit, enabled: auditPath !== undefined },
      ...settings
    },
    configPath: null,
    auditPath
  })
