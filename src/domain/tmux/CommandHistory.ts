/**
 * CommandHistory — one tmux pane's commands with where their output lies, pure: the pane's parsed
 * output moves a RowModel (the cursor as tmux moves it, between the sync points tmux's own replies
 * give), and each mark MarkTrust counted (one with the shell's token and prompt number) is logged
 * at the cursor's place in CommandLog (with the line its shell sent in `cmd=`: zsh and fish in `C`,
 * bash in `D`). Outputs are not kept: a command's output is read back from
 * tmux's history by these positions (src/layers/backends/tmux/Commands.ts), and only while the
 * model vouches for them.
 */
import type { Osc133Mark } from "../Osc133.js"
import type { StringKind } from "../VtParser.js"
import { CommandLog, type LogEntry, rowsBetween, type Spot } from "./CommandLog.js"
import type { EarlierCommand } from "./PromptRecord.js"
import { type GridState, type RowListener, RowModel } from "./RowModel.js"

/** Logs made in this process: each log's entries are named apart from every other's. */
let lives = 0

/** Where an entry's output is in the grid now (lines as RowModel numbers them). */
export interface OutputPlace {
  readonly start: Spot
  /** The end, or for a command still running the cursor now. */
  readonly end: Spot
  /** Rows of it in all. */
  readonly rows: number
  /** Rows of its start that tmux has dropped from the history. */
  readonly lostRows: number
}

export class CommandHistory implements RowListener {
  private readonly rows = new RowModel(this)
  private readonly log = new CommandLog(`${++lives}`)
  private marked = false

  /** The model lost track: output that may change unseen is lost, output in the history waits for the next sync. */
  lost(reason: string): void {
    this.log.lost(reason, this.rows.screenTop)
    this.marked = true
  }

  /** The stream may have missed or doubled bytes (`reason`): the rows are lost until the next sync. */
  reset(reason: string): void {
    this.rows.drop(reason)
  }

  /** Cells from (line, col) on may have been written over: entries reaching past it lose their output. */
  rewritten(line: number, col: number): void {
    this.log.rewritten({ line, col })
    this.protect()
  }

  print(text: string): void {
    this.rows.print(text)
  }

  execute(code: number): void {
    this.rows.execute(code)
  }

  csi(params: string, final: number, intermediates?: string): void {
    this.rows.csi(params, final, intermediates)
  }

  stringStart(kind: StringKind): void {
    this.rows.stringStart(kind)
  }

  abandoned(kind: StringKind): void {
    this.rows.abandoned(kind)
  }

  escape(final: number, intermediates: string): void {
    this.rows.escape(final, intermediates)
  }

  /** A mark MarkTrust counted, of shell `shell` at its prompt `seq` (the pane's prompt id `promptId`). */
  counted(
    shell: string,
    seq: number,
    mark: Osc133Mark,
    promptId: string | null,
    cwd: string | null,
    now: number,
    command: string | null = null
  ): void {
    const at = this.rows.cursor
    if (mark._tag === "CommandExecuted") this.log.started(shell, seq, promptId, at, cwd, now, command)
    else {
      const ended = mark._tag === "CommandFinished"
      this.log.marked(shell, seq, ended, ended ? mark.exitCode : null, at, now, ended ? command : null)
    }
    this.protect()
    this.marked = true
  }

  /** Shell `shell`'s last command from before TermPilot watched, as its record proves it (only into an empty log). */
  earlier(shell: string, command: EarlierCommand): void {
    this.log.earlier(shell, command)
  }

  /** Whether tmux's state should be asked for: a mark was logged since, or the rows are not known. */
  get needsSync(): boolean {
    return this.marked || this.rows.cursor === null
  }

  /** Whether the rows are known now (synced, not lost since). */
  get tracking(): boolean {
    return this.rows.cursor !== null
  }

  /** tmux's state at a sync point (a reply that follows every byte fed so far). */
  sync(state: GridState): "matched" | "adopted" | "mismatch" {
    this.marked = false
    const verdict = this.rows.sync(state)
    if (verdict !== "matched") this.log.resumed(verdict === "adopted" && this.rows.resumed)
    return verdict
  }

  /** The geometry of the last sync. */
  get grid(): GridState | null {
    return this.rows.grid
  }

  /** The kept entries, oldest first. */
  get entries(): ReadonlyArray<LogEntry> {
    return this.log.all
  }

  entry(id: string): LogEntry | undefined {
    return this.log.get(id)
  }

  /** The capture-pane row (0 = the screen's top, negative = history) of `line` under the last sync. */
  captureRow(line: number): number | null {
    const grid = this.rows.grid
    return grid === null ? null : line - this.rows.trimmed - grid.historySize
  }

  /**
   * Where `entry`'s output is now, or why it cannot be read: its own reason, rows never known, or
   * all of it gone from the history.
   */
  place(entry: LogEntry): OutputPlace | string {
    if (entry.unavailable !== null) return entry.unavailable
    if (entry.suspended !== null) return `${entry.suspended}; read it again in a moment`
    const end = entry.end ?? (entry.status === "running" ? this.rows.cursor : null)
    if (entry.start === null || end === null)
      return "TermPilot does not know where the pane's cursor is now; read it again in a moment"
    const oldest = this.rows.trimmed
    const rows = rowsBetween(entry.start, end)
    const lostRows = Math.max(0, Math.min(rows, oldest - entry.start.line))
    if (rows > 0 && lostRows >= rows) return "its output has left the pane's history"
    return { start: entry.start, end, rows, lostRows }
  }

  private protect(): void {
    const upTo = this.log.protectedUpTo
    if (upTo !== null) this.rows.protect(upTo.line, upTo.col)
  }
}
