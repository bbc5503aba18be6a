/**
 * PaneTable — the panes of one tmux server life as TermPilot tracks them: each pane's mark stream
 * (src/domain/tmux/PaneStream.ts) fed from the one control client that owns it (a window linked
 * into several sessions reaches several clients), the watchers its events go to, whether a
 * command of ours is in flight there, and the re-read of its announced tokens when a mark carries
 * one the stream does not know yet.
 */
import { Queue } from "effect"
import { formatOf, type PaneFlags, parseFields, tokensOf } from "../../../domain/tmux/PaneFormat.js"
import { PaneStream, type StreamStep } from "../../../domain/tmux/PaneStream.js"
import { type Evidence, NO_EVIDENCE, paneReadiness } from "../../../domain/tmux/TmuxReadiness.js"
import type { PromptEvent } from "../../../services/PromptTracker.js"
import type { Readiness } from "../../../services/Terminal.js"
import { PaneClaimState, releasePane } from "./Claims.js"
import type { ControlClient } from "./Connection.js"
import { evidenceOf, remoteEvidenceOf } from "./PaneEvidence.js"

/** One pane as this server life tracks it. */
export interface PaneEntry {
  readonly pane: number
  readonly stream: PaneStream
  /** The client whose stream this pane's state comes from. */
  owner: ControlClient | null
  readonly watchers: Set<Queue.Queue<PromptEvent>>
  /** A command of ours was typed and its prompt has not come back yet. */
  inFlight: boolean
  /** This process's claim on the pane, across TermPilot processes (PaneClaim.ts). */
  readonly claim: PaneClaimState
  /** The number of the last event offered to the pane's watchers (PromptEvent.seq). */
  eventSeq: number
  ended: boolean
  fetchingTokens: boolean
  /** When a prompt drawn before watching was last tried (EarlierPrompt.ts), ms; 0 never. */
  triedEarlier: number
  /**
   * A line feed came from the pane since it was first seen: before any counted mark, a shell
   * started before watching (Enter pressed there) wrote a line without a mark (PaneEvidence.ts).
   */
  lineSeen: boolean
  /** The pane is on a tmux server on another host (PaneEvidence.remoteEvidenceOf: no /proc). */
  readonly remote: boolean
}

/**
 * The readiness of a tracked pane with these tmux flags; a pane the stream finds ready must also
 * have the prompt's shell in its terminal's foreground, and a busy one (or one with no mark yet)
 * may be a transport (ssh) or shell that opened a shell without integration (/proc is read only then).
 */
export const entryReadiness = (entry: PaneEntry, flags: PaneFlags): Readiness => {
  const facts = entry.stream.facts
  const streaming = entry.owner?.isOpen === true
  const verdict = paneReadiness(flags, facts, entry.inFlight, streaming)
  if (verdict !== "ready" && verdict !== "busy" && verdict !== "unknown") return verdict
  return paneReadiness(flags, facts, entry.inFlight, streaming, entryEvidence(entry, flags))
}

/** What /proc says about the pane, beside its marks (PaneEvidence.ts). */
export const entryEvidence = (entry: PaneEntry, flags: PaneFlags): Evidence =>
  entry.inFlight
    ? NO_EVIDENCE
    : entry.remote
      ? remoteEvidenceOf(entry.stream.facts, flags, entry.lineSeen)
      : evidenceOf(entry.stream.facts, flags, entry.stream.rootPid, entry.lineSeen)

const TOKEN_FIELDS = ["pane_id", "@termpilot_tokens"] as const

export class PaneTable {
  private readonly entries = new Map<number, PaneEntry>()

  /** `remote`: the panes of a tmux server on another host. */
  constructor(readonly remote = false) {}

  get(pane: number): PaneEntry | undefined {
    return this.entries.get(pane)
  }

  all(): IterableIterator<PaneEntry> {
    return this.entries.values()
  }

  delete(pane: number): void {
    this.entries.delete(pane)
  }

  /** The entry of a pane, created empty when first seen. */
  entry(pane: number): PaneEntry {
    let entry = this.entries.get(pane)
    if (entry === undefined) {
      entry = {
        pane,
        stream: new PaneStream(),
        owner: null,
        watchers: new Set(),
        inFlight: false,
        claim: new PaneClaimState(),
        eventSeq: 0,
        ended: false,
        fetchingTokens: false,
        triedEarlier: 0,
        lineSeen: false,
        remote: this.remote
      }
      this.entries.set(pane, entry)
    }
    return entry
  }

  /** Whether any pane is watched. */
  get watched(): boolean {
    for (const entry of this.entries.values()) if (entry.watchers.size > 0) return true
    return false
  }

  /** Bytes `client` streamed for `pane`; ignored unless that client owns the pane (or its owner is gone). */
  feed(client: ControlClient, pane: number, bytes: Uint8Array): void {
    const entry = this.entry(pane)
    if (entry.owner !== client) {
      if (entry.owner?.isOpen === true) return
      entry.owner = client
    }
    if (!entry.lineSeen && bytes.includes(0x0a)) entry.lineSeen = true
    this.deliver(entry, entry.stream.feed(bytes, Date.now()))
  }

  /** The pane's announced tokens, freshly read (a held stream resumes with them). */
  announce(entry: PaneEntry, tokens: ReadonlyArray<string>): void {
    if (!entry.stream.hasTokens(tokens)) this.deliver(entry, entry.stream.setTokens(tokens))
  }

  /** The shell announced with `token` is at prompt `seq`, drawn before watching, with text typed or not (EarlierPrompt.ts proved it). */
  adopt(entry: PaneEntry, token: string, seq: number, typed: boolean): void {
    this.deliver(entry, entry.stream.adopt(token, seq, typed))
  }

  /** The pane died or disappeared: its watchers learn it once. */
  end(entry: PaneEntry): void {
    if (entry.ended) return
    entry.ended = true
    this.offer(entry, { _tag: "SessionEnded" })
  }

  /** The server or its clients went away: every watcher learns it. */
  lose(message: string): void {
    for (const entry of this.entries.values())
      this.offer(entry, { _tag: "Lost", message, code: "tmux_unavailable" })
  }

  private offer(entry: PaneEntry, event: PromptEvent): void {
    if (event._tag === "Prompt") this.commandDone(entry)
    const numbered = { ...event, seq: ++entry.eventSeq }
    for (const queue of entry.watchers) Queue.offerUnsafe(queue, numbered)
  }

  /** Our command's prompt came back (or it will never come): the pane is free, for every TermPilot process. */
  commandDone(entry: PaneEntry): void {
    entry.inFlight = false
    if (!entry.claim.commandHold) return
    entry.claim.commandHold = false
    releasePane(entry.owner, entry.pane, entry.claim)
  }

  private deliver(entry: PaneEntry, step: StreamStep): void {
    for (const event of step.events) this.offer(entry, event)
    if (step.needTokens) this.fetchTokens(entry)
  }

  /** Re-read the pane's announced tokens over its own client (so the reply follows the held mark). */
  private fetchTokens(entry: PaneEntry): void {
    const client = entry.owner
    if (entry.fetchingTokens || client === null) return
    entry.fetchingTokens = true
    client.request([`display -p -t %${entry.pane} ${formatOf(TOKEN_FIELDS)}`], false, [
      (_error, reply) => {
        entry.fetchingTokens = false
        const row = parseFields(TOKEN_FIELDS, reply?.lines[0] ?? "")
        const ok = row !== null && row.pane_id === `%${entry.pane}`
        // Unreadable: resume with the tokens already known (the unknown one is then rejected).
        const tokens = ok ? tokensOf(row["@termpilot_tokens"]) : [...entry.stream.tokenList]
        this.deliver(entry, entry.stream.setTokens(tokens))
      }
    ])
  }
}
