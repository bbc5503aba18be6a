/**
 * PaneEntry — one tmux pane as one server life tracks it, and the one owner of that pane's state:
 * its mark stream (src/domain/tmux/PaneStream.ts), fed only from the control client that owns the
 * pane (a window linked into several sessions reaches several clients), the watchers its events go
 * to (numbered), whether a command of ours is in flight there and the claim that command holds
 * (Claims.ts), the re-read of its announced tokens when a mark carries one the stream does not know
 * yet, and when a prompt drawn before watching was last tried (EarlierPrompt.ts). Other modules
 * read it (the stream only as a `StreamView`) and ask it to change through its methods; none
 * writes its fields.
 *
 * A grid reply is tmux's state when it ran the command, which is not always the stream's state
 * where the reply arrives. tmux writes a reply after all output queued before it, but per pane in
 * turn (control.c, control_write_pending): while another pane's older output still waits ahead of
 * the reply, this pane's output queued after the reply may be written first. Then that other
 * pane's output arrives after this pane's and before the reply. So a reply is compared with the
 * model only when every byte of output that came over the client while it was on its way was this
 * pane's (none: the pane was quiet; all: nothing could have overtaken the reply).
 */
import { Queue } from "effect"
import { formatOf, parseFields, tokensOf } from "../../../domain/tmux/PaneFormat.js"
import { PaneStream, type StreamStep } from "../../../domain/tmux/PaneStream.js"
import type { EarlierCommand } from "../../../domain/tmux/PromptRecord.js"
import { GRID_FORMAT, type GridState, parseGridState } from "../../../domain/tmux/RowModel.js"
import type { PromptEvent } from "../../../services/PromptTracker.js"
import { PaneClaimState, releasePane } from "./Claims.js"
import type { ControlClient } from "./Connection.js"

/** What other modules may ask of a pane's stream: what it says, never a change. */
export type StreamView = Pick<
  PaneStream,
  | "facts"
  | "untouched"
  | "fed"
  | "rootPid"
  | "tokenList"
  | "cwd"
  | "remoteHost"
  | "output"
  | "outputSoFar"
  | "lineCount"
  | "history"
>

/** A prompt record's number, as EarlierPrompt.readPromptRecord reads it for a shell's pid and token. */
type RecordOf = (pid: number, token: string) => { readonly seq: number } | null

const TOKEN_FIELDS = ["pane_id", "@termpilot_tokens"] as const

/** How often a pane is asked for its rows again while it writes: rows lost, or the last reply not comparable. */
const RESYNC_MS = 250

/** A grid request: the line to send over `client`; the pane's and the client's output read when it was sent. */
export interface GridAsk {
  readonly client: ControlClient
  readonly line: string
  readonly fed: number
  readonly read: number
}

/**
 * What a grid reply did: the model's verdict (CommandHistory.sync); "incomparable" when output of
 * other panes came with this pane's while the request was on its way (the reply may be from
 * earlier in the stream: nothing changed, ask again); null when the reply is not this pane's, its
 * stream is held or changed owner, or the reply is unreadable.
 */
export type RowsVerdict = "matched" | "adopted" | "mismatch" | "incomparable" | null

export class PaneEntry {
  private readonly paneStream = new PaneStream()
  private client: ControlClient | null = null
  private readonly watchers = new Set<Queue.Queue<PromptEvent>>()
  private commandInFlight = false
  private seq = 0
  private isEnded = false
  private fetchingTokens = false
  private earlierTriedAt = 0
  private sawLine = false
  private syncing = false
  /** When the grid was last asked for as a resync, and a later ask waiting for RESYNC_MS. */
  private resyncedAt = 0
  private resyncTimer: ReturnType<typeof setTimeout> | null = null
  /** The last grid reply could not be compared (syncRows): the next ask is a resync. */
  private unsettled = false
  private hadOwner = false
  /** This process's claim on the pane, across TermPilot processes (its state is Claims.ts's). */
  readonly claim = new PaneClaimState()

  /** `remote`: the pane is on a tmux server on another host (PaneEvidence.remoteEvidenceOf: no /proc). */
  constructor(
    readonly pane: number,
    readonly remote: boolean
  ) {}

  /** What the pane's mark stream says. */
  get stream(): StreamView {
    return this.paneStream
  }

  /** The client whose stream this pane's state comes from. */
  get owner(): ControlClient | null {
    return this.client
  }

  /** A command of ours was typed and its prompt has not come back yet. */
  get inFlight(): boolean {
    return this.commandInFlight
  }

  /** The number of the last event offered to the pane's watchers (PromptEvent.seq). */
  get eventSeq(): number {
    return this.seq
  }

  /** The pane died or disappeared (its watchers were told). */
  get ended(): boolean {
    return this.isEnded
  }

  /**
   * A line feed came from the pane since it was first seen: before any counted mark, a shell
   * started before watching (Enter pressed there) wrote a line without a mark (PaneEvidence.ts).
   */
  get lineSeen(): boolean {
    return this.sawLine
  }

  /** Whether anyone watches the pane. */
  get watched(): boolean {
    return this.watchers.size > 0
  }

  /** Bytes `client` streamed for the pane; ignored unless that client owns it (or its owner is gone). */
  feed(client: ControlClient, bytes: Uint8Array): void {
    if (this.client !== client) {
      if (this.client?.isOpen === true) return
      // Bytes between the two clients' streams may be missing or doubled.
      if (this.hadOwner) this.paneStream.history.reset("TermPilot's tmux connection to the pane changed")
      this.client = client
      this.hadOwner = true
    }
    if (!this.sawLine && bytes.includes(0x0a)) this.sawLine = true
    this.deliver(this.paneStream.feed(bytes, Date.now()))
  }

  /** The pane's announced tokens, freshly read (a held stream resumes with them). */
  announce(tokens: ReadonlyArray<string>): void {
    if (!this.paneStream.hasTokens(tokens)) this.deliver(this.paneStream.setTokens(tokens))
  }

  /**
   * The shell announced with `token` is at prompt `seq`, drawn before watching, with text typed or
   * not, as EarlierPrompt.ts proved over `client`, which streams the pane from now on.
   */
  adopt(client: ControlClient, token: string, seq: number, typed: boolean): void {
    this.client = client
    this.deliver(this.paneStream.adopt(token, seq, typed))
  }

  /** The directory the pane reported before it was watched (tmux's `pane_path`), until the stream sees a report. */
  reportedCwd(path: string, host: string | null): void {
    this.paneStream.seedCwd(path, host)
  }

  /** The last command the shell announced with `token` ran before watching, as EarlierPrompt.ts proved it. */
  earlier(token: string, command: EarlierCommand): void {
    this.paneStream.earlier(token, command)
  }

  /** `queue` gets the pane's events; commands that start from now on have their output captured. */
  watch(queue: Queue.Queue<PromptEvent>): void {
    this.watchers.add(queue)
    this.paneStream.record = true
  }

  unwatch(queue: Queue.Queue<PromptEvent>): void {
    this.watchers.delete(queue)
    this.paneStream.record = this.watchers.size > 0
  }

  /** The pane is in `sessions` now: a client attached to another session no longer streams it. */
  keepOwnerIn(sessions: ReadonlyArray<string>): void {
    const owner = this.client
    if (owner !== null && (owner.session === null || !sessions.includes(owner.session))) this.client = null
  }

  /** Whether a prompt drawn before watching may be tried now: not within `retryMs` of the last try (then `now` is the last). */
  tryEarlier(now: number, retryMs: number): boolean {
    if (now - this.earlierTriedAt < retryMs) return false
    this.earlierTriedAt = now
    return true
  }

  /**
   * TermPilot is typing a command at the pane's current prompt: the stream binds it to that
   * prompt's shell (PaneStream.commandTyped), it is in flight, and it holds the claim until its
   * prompt comes back (`commandDone`).
   */
  commandTyped(recordOf?: RecordOf): void {
    this.paneStream.commandTyped(recordOf)
    this.commandInFlight = true
    this.claim.holdForCommand()
  }

  /** tmux refused the first line of the command: nothing reached the pane, nothing is in flight. */
  commandNotTyped(): void {
    this.paneStream.commandNotTyped()
    this.commandDone()
  }

  /** The pane died or disappeared: its watchers learn it once. */
  end(): void {
    if (this.isEnded) return
    this.isEnded = true
    this.offer({ _tag: "SessionEnded" })
  }

  /** The server or its clients went away: the pane's watchers learn it. */
  lose(message: string): void {
    this.offer({ _tag: "Lost", message, code: "tmux_unavailable" })
  }

  /** Our command's prompt came back (or it will never come): the pane is free, for every TermPilot process. */
  private commandDone(): void {
    this.commandInFlight = false
    if (this.claim.endCommandHold()) releasePane(this.client, this.pane, this.claim)
  }

  private offer(event: PromptEvent): void {
    if (event._tag === "Prompt") this.commandDone()
    const numbered = { ...event, seq: ++this.seq }
    for (const queue of this.watchers) Queue.offerUnsafe(queue, numbered)
  }

  private deliver(step: StreamStep): void {
    for (const event of step.events) this.offer(event)
    if (step.needTokens) this.fetchTokens()
    this.askRows()
  }

  /** A grid request over the client that streams the pane now; null without one. */
  gridAsk(): GridAsk | null {
    const client = this.client
    const line = `display -p -t %${this.pane} '#{pane_id} ${GRID_FORMAT}'`
    return client === null ? null : { client, line, fed: this.paneStream.fed, read: client.outputRead }
  }

  /**
   * tmux's grid state from the reply to `ask`, given to the pane's command history when it is
   * exactly the state after every byte fed so far: the same client streams the pane, the stream
   * is not held (its parse is behind what tmux had), and whatever the pane wrote meanwhile came
   * alone (see the module's note).
   */
  syncRows(ask: GridAsk, line: string): RowsVerdict {
    const own = `%${this.pane} `
    if (!line.startsWith(own) || this.client !== ask.client) return null
    const state: GridState | null = parseGridState(line.slice(own.length))
    if (state === null || this.paneStream.waitingForTokens) return null
    const fed = this.paneStream.fed - ask.fed
    this.unsettled = fed > 0 && ask.client.outputRead - ask.read !== fed
    return this.unsettled ? "incomparable" : this.paneStream.history.sync(state)
  }

  /**
   * Ask tmux for the grid when the command history needs it: one request at a time; while the rows
   * are lost or the last reply was not comparable, at once the first time, then at most every
   * RESYNC_MS (a pane that keeps writing), the last one on a timer so that a pane gone quiet is
   * synced too.
   */
  private askRows(): void {
    const history = this.paneStream.history
    const ask = this.gridAsk()
    if (this.syncing || ask === null || !history.needsSync || this.paneStream.waitingForTokens) return
    // The first sync ever is not a resync: a loss right after it is asked about at once.
    if (this.unsettled || (!history.tracking && history.grid !== null)) {
      const wait = this.resyncedAt + RESYNC_MS - Date.now()
      if (wait > 0) {
        this.resyncTimer ??= setTimeout(() => {
          this.resyncTimer = null
          if (!this.isEnded) this.askRows()
        }, wait)
        this.resyncTimer.unref?.()
        return
      }
      this.resyncedAt = Date.now()
    }
    this.syncing = true
    ask.client.request([ask.line], false, [
      (_error, reply) => {
        this.syncing = false
        const verdict = reply?.ok === true ? this.syncRows(ask, reply.lines[0] ?? "") : null
        if (verdict === "incomparable") this.askRows()
      }
    ])
  }

  /** Re-read the pane's announced tokens over its own client (so the reply follows the held mark). */
  private fetchTokens(): void {
    const client = this.client
    if (this.fetchingTokens || client === null) return
    this.fetchingTokens = true
    client.request([`display -p -t %${this.pane} ${formatOf(TOKEN_FIELDS)}`], false, [
      (_error, reply) => {
        this.fetchingTokens = false
        const row = parseFields(TOKEN_FIELDS, reply?.lines[0] ?? "")
        const ok = row !== null && row.pane_id === `%${this.pane}`
        // Unreadable: resume with the tokens already known (the unknown one is then rejected).
        const tokens = ok ? tokensOf(row["@termpilot_tokens"]) : [...this.paneStream.tokenList]
        this.deliver(this.paneStream.setTokens(tokens))
      }
    ])
  }
}
