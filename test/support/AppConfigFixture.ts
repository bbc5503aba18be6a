/**
 * An AppConfig for tests: given iTerm2 settings, everything else as with no config file, except
 * that the audit trail is off unless a path is given, and only the iTerm2 backend is used (no
 * test may look at the machine's tmux servers); optionally overridden.
 */
import { Layer } from "effect"
import type { BackendChoice } from "../../src/domain/BackendSelection.js"
import { DEFAULT_CONFIG, type TermPilotConfig } from "../../src/domain/ConfigFile.js"
import { AppConfig, type Iterm2Settings, type TmuxSettings } from "../../src/services/AppConfig.js"

export const NO_TMUX: TmuxSettings = { sockets: [], tmuxPath: "tmux", ownPane: null, commandTimeoutMs: 5_000 }
export const ITERM2_ONLY: BackendChoice = { mode: "explicit", enabled: ["iterm2"] }

export interface BackendOverrides {
  readonly tmux?: TmuxSettings
  readonly backends?: BackendChoice
}

export const appConfigFor = (
  iterm2: Iterm2Settings,
  settings: Partial<TermPilotConfig> = {},
  auditPath?: string,
  backends: BackendOverrides = {}
): Layer.Layer<AppConfig> =>
  Layer.succeed(AppConfig, {
    iterm2,
    tmux: backends.tmux ?? NO_TMUX,
    backends: backends.backends ?? ITERM2_ONLY,
    // No audit trail unless the test names a file for it.
    settings: {
      ...DEFAULT_CONFIG,
      audit: { ...DEFAULT_CONFIG.audit, enabled: auditPath !== undefined },
      ...settings
    },
    configPath: null,
    auditPath
  })
