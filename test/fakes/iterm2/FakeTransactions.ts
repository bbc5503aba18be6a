/**
 * FakeTransactions — iTerm2's API transactions: one connection at a time runs requests while the
 * others queue, nesting → ALREADY_IN_TRANSACTION, ending outside one → NO_TRANSACTION, and the
 * world's clock stops (shell output held) from begin to end. Tests may run a step inside the next
 * transaction (e.g. let a shell finish while iTerm2's view of it stands still).
 */
import type { FakeConnectionHandle } from "./FakeProtocol.js"

export class FakeTransactions {
  private owner: FakeConnectionHandle | null = null
  private waiters: Array<() => void> = []
  private readonly insideNext: Array<() => Promise<void>> = []

  constructor(
    private readonly hold: () => Promise<void>,
    private readonly release: () => void
  ) {}

  /** Whether another connection holds a transaction (`connection`'s requests must wait). */
  blocks(connection: FakeConnectionHandle): boolean {
    return this.owner !== null && this.owner !== connection
  }

  /**
   * Resolves at the next transaction end. A caller loops `while (blocks(c)) await nextTurn()` in
   * its own body, so the check and what follows it run in one synchronous step: an `await` of a
   * separate async "wait for my turn" would let another connection's begin slip in between (two
   * woken waiters both found the transaction free, and both began one).
   */
  nextTurn(): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push(resolve))
  }

  /** Takes the transaction; the caller has just checked (synchronously) that no other connection holds one. */
  async begin(connection: FakeConnectionHandle): Promise<"OK" | "ALREADY_IN_TRANSACTION"> {
    if (this.owner === connection) return "ALREADY_IN_TRANSACTION"
    if (this.owner !== null)
      throw new Error("fake iTerm2: a begin ran while another connection held a transaction")
    this.owner = connection
    await this.hold()
    await this.insideNext.shift()?.()
    return "OK"
  }

  /** Runs `step` once, in the next transaction begun: after the clock stopped, before the begin is answered. */
  duringNextBegin(step: () => Promise<void>): void {
    this.insideNext.push(step)
  }

  /** Ends `connection`'s transaction (any, when omitted). */
  end(connection?: FakeConnectionHandle): "OK" | "NO_TRANSACTION" {
    if (this.owner === null || (connection !== undefined && this.owner !== connection))
      return "NO_TRANSACTION"
    this.owner = null
    this.release()
    for (const wake of this.waiters.splice(0)) wake()
    return "OK"
  }
}
