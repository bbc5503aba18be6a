/**
 * PaneTable — the panes of one tmux server life as TermPilot tracks them (each a PaneEntry, the
 * one owner of that pane's state): created when first seen, output routed to its pane, dropped
 * when the pane is gone; and a tracked pane's readiness and /proc evidence, asked of its entry.
 */
import type { PaneFlags } from "../../../domain/tmux/PaneFormat.js"
import { type Evidence, NO_EVIDENCE, paneReadiness } from "../../../domain/tmux/TmuxReadiness.js"
import type { Readiness } from "../../../services/Terminal.js"
import type { ControlClient } from "./Connection.js"
import { PaneEntry } from "./PaneEntry.js"
import { evidenceOf, remoteEvidenceOf } from "./PaneEvidence.js"

export { PaneEntry, type StreamView } from "./PaneEntry.js"

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
      entry = new PaneEntry(pane, this.remote)
      this.entries.set(pane, entry)
    }
    return entry
  }

  /** Whether any pane is watched. */
  get watched(): boolean {
    for (const entry of this.entries.values()) if (entry.watched) return true
    return false
  }

  /** Bytes `client` streamed for `pane` (PaneEntry.feed: only the pane's owner counts). */
  feed(client: ControlClient, pane: number, bytes: Uint8Array): void {
    this.entry(pane).feed(client, bytes)
  }

  /** The server or its clients went away: every watcher learns it. */
  lose(message: string): void {
    for (const entry of this.entries.values()) entry.lose(message)
  }
}
