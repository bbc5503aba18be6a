/**
 * AppConfig — the only reader of the environment and the config file. Secrets are `Redacted`.
 */

import { Context, type Option, type Redacted } from "effect"
import type { BackendChoice } from "../domain/BackendSelection.js"
import type { TermPilotConfig } from "../domain/ConfigFile.js"
import type { TmuxHost } from "../domain/tmux/TmuxHost.js"

export interface Iterm2Settings {
  /** Absolute path of iTerm2's API socket (honours IT2_SUITE). */
  readonly socketPath: string
  /** Cookie and key handed over by iTerm2 (ITERM2_COOKIE / ITERM2_KEY), single-use. */
  readonly cookie: Option.Option<Redacted.Redacted<string>>
  readonly key: Option.Option<Redacted.Redacted<string>>
  /** `osascript` executable used for the AppleScript cookie request. */
  readonly osascript: string
  /** Application name or path for AppleScript (IT2_APP_PATH or "iTerm2"). */
  readonly appName: string
  /** Per-request timeout in milliseconds. */
  readonly requestTimeoutMs: number
  /** Connect + handshake timeout in milliseconds. */
  readonly connectTimeoutMs: number
}

export interface TmuxSettings {
  /** Absolute socket paths to look for tmux servers at (the default server first). */
  readonly sockets: ReadonlyArray<string>
  /** The tmux executable (TERMPILOT_TMUX, else `tmux` on PATH). */
  readonly tmuxPath: string
  /** The pane TermPilot itself runs in; never a write target. */
  readonly ownPane: { readonly socket: string; readonly pane: string } | null
  /** Timeout of one tmux command or subprocess, in milliseconds. */
  readonly commandTimeoutMs: number
  /** Hosts whose default tmux server is reached over ssh (config `tmux.hosts`, TERMPILOT_TMUX_HOSTS); none when absent. */
  readonly hosts?: ReadonlyArray<TmuxHost>
  /** The ssh client (TERMPILOT_SSH, else `ssh` on PATH). */
  readonly sshPath?: string
  /** An ssh_config file passed as `ssh -F` (TERMPILOT_SSH_CONFIG); null: ssh's own defaults. */
  readonly sshConfig?: string | null
}

export class AppConfig extends Context.Service<
  AppConfig,
  {
    readonly iterm2: Iterm2Settings
    readonly tmux: TmuxSettings
    /** Which backends are used (config `backends`, TERMPILOT_BACKENDS). */
    readonly backends: BackendChoice
    /**
     * The config file's settings, defaults filled in (see src/domain/ConfigFile.ts), with
     * `--read-only` and TERMPILOT_READ_ONLY applied to `readOnly`, and TERMPILOT_TOOL_DEADLINE_MS
     * (when set) to `toolDeadlineMs`.
     */
    readonly settings: TermPilotConfig
    /** The config file in force, or null when there is none. */
    readonly configPath: string | null
    /** Where the audit trail is written (resolved), or undefined when no path can be formed. */
    readonly auditPath: string | undefined
  }
>()("termpilot/AppConfig") {}
