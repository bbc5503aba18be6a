/**
 * BackendTypes — what a bench backend is (BenchBackend) and what it gives the figures (BenchWorld):
 * the types the backends (bench/<Name>Backend.ts) implement and bench/Backends.ts lists, apart from
 * that list so that no backend imports the module that imports it.
 */
import type { Started } from "./Spawned.js"

export interface CommandSpan {
  /** performance.now() (this process) when the command's keystrokes reached the terminal. */
  readonly sentAt: number
  /** performance.now() when the terminal sent the command-end event. */
  readonly endedAt: number
}

export interface BenchWorld {
  /** Environment for a spawned server (on top of PATH) so that it reaches this world. */
  readonly env: Readonly<Record<string, string>>
  /** Session ids, in creation order; each has shell integration. */
  readonly sessionIds: ReadonlyArray<string>
  /** Runs `command` in a session as the user would (not through TermPilot), until its prompt is back. */
  readonly runAsUser: (sessionId: string, command: string) => Promise<void>
  /**
   * The shell's own span of the last command TermPilot sent to a session, or undefined where the
   * backend cannot observe it (then the bench reports end-to-end time only).
   */
  readonly lastCommandSpan: (sessionId: string) => CommandSpan | undefined
  /**
   * What a person does once a freshly started server is watching (tmux: press Enter in each pane,
   * so the server sees a prompt drawn after it started); resolves when every session is ready.
   */
  readonly afterStart?: (server: Started) => Promise<void>
  /**
   * The floor for big output, where the backend has one (tmux): ms from sending `command` to a
   * session to its end mark, for a bare client of the terminal that only reads what it is sent
   * (tmux: a `tmux -C` control client scanning its %output lines), with no TermPilot attached.
   */
  readonly bareOutputFloor?: (sessionId: string, command: string) => Promise<number>
  readonly close: () => Promise<void>
}

export interface WorldOptions {
  readonly sessions: number
  /** Lines of scrollback each session keeps. */
  readonly scrollback: number
}

/** A backend's own targets (issue 17's table), where they differ between backends. */
export interface BackendTargets {
  /** `run_command true` end to end, where the issue sets one for this backend. */
  readonly runTrueMs?: number
  /** list_sessions at 100 sessions. */
  readonly list100Ms: number
  /** read_terminal of 200 lines out of a 100,000-line scrollback (and read_command_output's 200 of 100,000). */
  readonly deepReadMs: number
  /** list_commands of 200 entries; an informational row where unset. */
  readonly listCommands200Ms?: number
}

export interface BenchBackend {
  /** Shown in the table's subject column, e.g. "iTerm2 fake". */
  readonly name: string
  readonly targets: BackendTargets
  /** "hot-paths": only run_command `true` and list_sessions (Figures.ts); all figures when absent. */
  readonly figures?: "hot-paths"
  /**
   * The spawned server keeps each watched pane's command log itself (tmux; iTerm2 keeps its own):
   * its idle RSS with 100 panes × 200 commands is measured (CommandFigures.ts).
   */
  readonly commandLogInServer?: boolean
  readonly open: (options: WorldOptions) => Promise<BenchWorld>
}
