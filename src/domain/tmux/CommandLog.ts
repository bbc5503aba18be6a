/**
 * CommandLog — the commands one tmux pane ran, as its counted marks prove them, pure: an entry per
 * command a shell started (its `C`, carrying the shell's token and prompt number), ended by that
 * shell's `D` of the same prompt (with its status) or by a later prompt of it (no status), kept
 * with where its output lies in the pane's grid (RowModel lines and columns: anchors into tmux's
 * own history, never a copy of the output). Only marks MarkTrust counted reach it, so output that
 * prints marks (forged, replayed, another shell's while ours runs) makes no entry and ends none.
 * An entry whose rows TermPilot cannot vouch for (the model lost track, the screen was written
 * over it) keeps its facts but not its output, and says why. So does the one command of a shell
 * that ran before TermPilot watched the pane, as that shell's own record proves it (`earlier`).
 * At most `capacity` entries per pane. An entry is kept compact (100 panes × 200 entries stay resident in a long session): small
 * numbers only, no position objects, times as offsets from the log's first, and the shell key and
 * working directory shared with the entry before it when equal.
 */
import type { EarlierCommand } from "./PromptRecord.js"

/** A grid position: a RowModel line (one grid row for its whole life) and a column. */
export interface Spot {
  readonly line: number
  readonly col: number
}

export type EntryStatus = "running" | "finished" | "unknown"

/** One command, as the pane's marks prove it. */
export interface LogEntry {
  /** Unique in this process: the log's life and the entry's number. */
  readonly id: string
  /** The shell's mark key (its token, or token/shell id for a nested shell): never shown. */
  readonly shell: string
  /** The shell's prompt number the command ran at. */
  readonly seq: number
  /** The pane's prompt id (PromptProgress) the command was typed at: what a Submission names. */
  readonly promptId: string | null
  readonly cwd: string | null
  /** The command line, when the shell said it (its `C` mark's `cmd=`, or its record). */
  readonly command: string | null
  /** Null when not known (a command from before TermPilot watched, in a shell without a clock). */
  readonly startedAt: number | null
  readonly finishedAt: number | null
  readonly exitCode: number | null
  readonly status: EntryStatus
  /** Where its output starts (the cursor at its `C`); null when the rows were not known then. */
  readonly start: Spot | null
  /** Where its output ends (the cursor at its end), null while it runs or when not known. */
  readonly end: Spot | null
  /** Why its output cannot be read exactly; null when it can. */
  readonly unavailable: string | null
  /** Why its output cannot be read until TermPilot knows the pane's rows again (a loss); null when it can. */
  readonly suspended: string | null
}

/** A time not known: the smallest small integer, so that every time field stays one (a NaN would box them all). */
const UNKNOWN_MS = -(2 ** 31)

/**
 * The log's first known time, shared by its entries (one number, not a boxed copy in each); null
 * until a time is known. Set once: an entry's offset always means the same instant.
 */
interface Clock {
  base: number | null
}

/** `at` as an offset from the clock, which it sets when it has no time yet. */
const offset = (clock: Clock, at: number | null): number => {
  if (at === null) return UNKNOWN_MS
  clock.base ??= at
  return at - clock.base
}

/** A kept entry: what LogEntry says, in numbers and shared strings; positions and times on demand. */
class Kept implements LogEntry {
  status: EntryStatus = "running"
  exitCode: number | null = null
  unavailable: string | null
  suspended: string | null = null
  /** startedAt and finishedAt, as offsets from the log's clock (small integers, not boxed numbers; UNKNOWN_MS: not known). */
  private readonly startedMs: number
  private finishedMs = 0
  /** start and end as numbers (-1: not known), not Spot objects. */
  private readonly startLine: number
  private readonly startCol: number
  private endLine = -1
  private endCol = -1

  constructor(
    private readonly life: string,
    readonly number: number,
    readonly shell: string,
    readonly seq: number,
    readonly promptId: string | null,
    readonly cwd: string | null,
    public command: string | null,
    at: Spot | null,
    private readonly clock: Clock,
    now: number | null
  ) {
    this.startedMs = offset(clock, now)
    this.startLine = at === null ? -1 : at.line
    this.startCol = at === null ? -1 : at.col
    this.unavailable =
      at === null ? "TermPilot did not yet know where the pane's cursor was when it started" : null
  }

  get id(): string {
    return `${this.life}.${this.number}`
  }
  get startedAt(): number | null {
    return this.startedMs === UNKNOWN_MS ? null : this.clock.base! + this.startedMs
  }
  /** Only `finish` ends an entry, and it always sets the time (UNKNOWN_MS when not known). */
  get finishedAt(): number | null {
    return this.status === "running" || this.finishedMs === UNKNOWN_MS
      ? null
      : this.clock.base! + this.finishedMs
  }
  get start(): Spot | null {
    return this.startLine < 0 ? null : { line: this.startLine, col: this.startCol }
  }
  get end(): Spot | null {
    return this.endLine < 0 ? null : { line: this.endLine, col: this.endCol }
  }

  finish(status: EntryStatus, exitCode: number | null, at: Spot | null, now: number | null): void {
    this.status = status
    this.exitCode = exitCode
    this.finishedMs = offset(this.clock, now)
    this.endLine = at === null ? -1 : at.line
    this.endCol = at === null ? -1 : at.col
    if (at === null) this.unavailable ??= "TermPilot did not know where the pane's cursor was when it ended"
  }
}

/** Entries kept per pane. */
export const LOG_CAPACITY = 200

/** Whether `a` comes before `b` in the grid (line-major). */
const before = (a: Spot, b: Spot): boolean => a.line < b.line || (a.line === b.line && a.col < b.col)

/** Rows a command's output takes from `start` to `end` (the end's row counts when the cursor left text on it). */
export const rowsBetween = (start: Spot, end: Spot): number =>
  Math.max(0, end.line - start.line + (end.col > 0 ? 1 : 0))

export class CommandLog {
  private readonly entries: Array<Kept> = []
  /** The first time known: every entry's times are kept as offsets from it. */
  private readonly clock: Clock = { base: null }
  private count = 0
  /** Per shell: the number of the newest entry when its last counted mark came. */
  private readonly lastMark = new Map<string, number>()

  constructor(
    private readonly life: string,
    private readonly capacity: number = LOG_CAPACITY
  ) {}

  /** The kept entries, oldest first. */
  get all(): ReadonlyArray<LogEntry> {
    return this.entries
  }

  /** The entry named `id`, if it is kept. */
  get(id: string): LogEntry | undefined {
    const number = Number(id.slice(id.lastIndexOf(".") + 1))
    return this.entries.find((e) => e.number === number && e.id === id)
  }

  /** The end of the newest finished entry whose output is still readable: writes before it spoil something. */
  get protectedUpTo(): Spot | null {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i]!
      if (e.end !== null && e.unavailable === null && e.suspended === null) return e.end
    }
    return null
  }

  /**
   * Shell `shell` started the command of its prompt `seq` with the cursor at `at` (null: rows not
   * known). A repeated `C` of a prompt already logged changes nothing.
   */
  started(
    shell: string,
    seq: number,
    promptId: string | null,
    at: Spot | null,
    cwd: string | null,
    now: number,
    command: string | null = null
  ): void {
    if (this.entries.some((e) => e.shell === shell && e.seq === seq)) return
    const last = this.entries.at(-1)
    this.entries.push(
      new Kept(
        this.life,
        ++this.count,
        shell === last?.shell ? last.shell : shell,
        seq,
        promptId,
        cwd !== null && cwd === last?.cwd ? last.cwd : cwd,
        command !== null && command === last?.command ? last.command : command,
        at,
        this.clock,
        now
      )
    )
    this.lastMark.set(shell, this.count)
    if (this.entries.length > this.capacity) this.entries.shift()
  }

  /**
   * The last command shell `shell` ran before TermPilot watched the pane, as its own record proves
   * it (EarlierPrompt.ts), logged first: finished, with its status, and no output (its rows were
   * never seen). Only into an empty log: once marks were logged, they say more than the record.
   */
  earlier(shell: string, command: EarlierCommand): void {
    if (this.entries.length > 0) return
    const kept = new Kept(
      this.life,
      ++this.count,
      shell,
      command.seq,
      null,
      command.cwd,
      command.command,
      null,
      this.clock,
      command.startedAt
    )
    kept.finish("finished", command.exitCode, null, command.finishedAt)
    kept.unavailable = "it ran before TermPilot watched this pane, so where its output lies is not known"
    this.entries.push(kept)
  }

  /**
   * A counted mark of shell `shell` at prompt `seq` with the cursor at `at`: its `D` (`ended`,
   * `exitCode` its status) ends the command of that prompt; any mark of a later prompt ends that
   * shell's earlier command, status unknown. What ran nested in a command that ended (a shell
   * inside ssh, say: entries of other shells logged after it) ended with it, status unknown; so
   * did what ran inside a command of that shell that started before the log saw it, when its `D`
   * carries a status. A `D` may name the line that ran (`command`: bash's, which only its history
   * knows once the command ended), for an entry whose `C` did not.
   */
  marked(
    shell: string,
    seq: number,
    ended: boolean,
    exitCode: number | null,
    at: Spot | null,
    now: number,
    command: string | null = null
  ): void {
    let endedOwn: number | null = null
    for (const e of this.entries) {
      if (e.status !== "running" || e.shell !== shell) continue
      if (e.seq === seq && ended) {
        e.command ??= command
        e.finish("finished", exitCode, at, now)
      } else if (e.seq < seq) e.finish("finished", null, at, now)
      else continue
      endedOwn ??= e.number
    }
    const after = endedOwn ?? (ended && exitCode !== null ? (this.lastMark.get(shell) ?? 0) : null)
    if (after !== null) {
      for (const e of this.entries) {
        if (e.number > after && e.shell !== shell && e.status === "running")
          e.finish("unknown", null, at, now)
      }
    }
    this.lastMark.set(shell, this.count)
    if (this.lastMark.size > this.capacity) this.lastMark.delete(this.lastMark.keys().next().value!)
  }

  /** Cells from `from` on may have been written over: every readable entry whose output reaches past it. */
  rewritten(from: Spot): void {
    for (const e of this.entries) {
      if (e.unavailable !== null || e.end === null || !before(from, e.end)) continue
      e.unavailable = "the pane wrote over its output on the screen after it ended"
    }
  }

  /**
   * TermPilot lost track of the pane's rows (`reason`) with the screen's top row at line
   * `screenTop` (null: not known). What it can no longer vouch for loses its output now: a command
   * still running, and any output that reaches the screen, which may be written over unseen. Output
   * wholly in the history is suspended until the next sync says whether its lines still hold.
   */
  lost(reason: string, screenTop: number | null): void {
    const why = `TermPilot lost track of the pane's rows after it started: ${reason}`
    for (const e of this.entries) {
      if (e.unavailable !== null) continue
      const inHistory =
        screenTop !== null && e.end !== null && e.end.line + (e.end.col > 0 ? 1 : 0) <= screenTop
      if (inHistory) e.suspended ??= why
      else e.unavailable = why
    }
  }

  /** The sync after a loss: the suspended entries' lines hold (`held`), or they lose their output. */
  resumed(held: boolean): void {
    for (const e of this.entries) {
      if (e.suspended === null) continue
      if (!held) e.unavailable ??= `${e.suspended}; where the history moved meanwhile could not be proved`
      e.suspended = null
    }
  }
}
