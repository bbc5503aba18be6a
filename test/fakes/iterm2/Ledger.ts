/**
 * Ledger — every SendTextRequest the fake iTerm2 received, in arrival order, whether or not the
 * session existed. Tests use it to prove what TermPilot did (and did not) type into a session;
 * the user's own typing (FakeWorld.type) never appears here.
 */

export interface LedgerEntry {
  /** The session field exactly as sent ("active", "all", a GUID, or "" when absent). */
  readonly session: string
  readonly text: string
  readonly suppress_broadcast: boolean | undefined
  /** Date.now() when the request was handled. */
  readonly at: number
  readonly connectionId: number
}

export class Ledger {
  private readonly entries: Array<LedgerEntry> = []

  record(entry: LedgerEntry): void {
    this.entries.push(entry)
  }

  /** All sends, oldest first. */
  all(): ReadonlyArray<LedgerEntry> {
    return [...this.entries]
  }

  /** Sends whose session field was exactly `session`. */
  forSession(session: string): ReadonlyArray<LedgerEntry> {
    return this.entries.filter((e) => e.session === session)
  }

  /** The concatenated text sent to `session`. */
  textFor(session: string): string {
    return this.forSession(session)
      .map((e) => e.text)
      .join("")
  }

  get size(): number {
    return this.entries.length
  }

  clear(): void {
    this.entries.length = 0
  }
}
