/**
 * Claims — one TermPilot process types into a tmux pane at a time, across every TermPilot
 * process of the person (each MCP client starts its own). Before typing, a process claims the
 * pane in tmux itself: one `set -p -F` whose value is a format that keeps a claim already there and
 * writes ours only where there is none — tmux expands and sets it within one command, and runs one
 * command to its end before it runs another client's, so of any number of processes claiming at
 * once exactly one finds its own value in the flags it reads right after. The claim is kept while a command
 * this process typed runs (released when its prompt comes back) and for no longer than the keys
 * of a send_keys or an interrupt take. A claim whose holder died (ClaimHolder.holderState) is
 * cleared with a compare-and-clear (the same kind of format, on the exact value) and claimed again.
 * Each of these is one command, so each write has exactly one reply block. Why this is sound: specs/security.md, "One command per pane across processes".
 */
import { Effect, Semaphore } from "effect"
import { FLAG_FIELDS, type FlagRow, flagsLine, parseFields } from "../../../domain/tmux/PaneFormat.js"
import { fail, sessionClaimed, sessionNotFound, type TermPilotError } from "../../../services/Errors.js"
import type { Readiness } from "../../../services/Terminal.js"
import { describeHolder, holderState, ownClaim } from "../ClaimHolder.js"
import type { ControlClient } from "./Connection.js"

export const CLAIM_OPTION = "@termpilot_claim"

/** Writes `value` as the claim only where none is (the empty value is none). */
const claimLine = (pane: number, value: string) =>
  `set -p -F -t %${pane} ${CLAIM_OPTION} '#{?#{${CLAIM_OPTION}},#{${CLAIM_OPTION}},${value}}'`

/** Clears the claim only while it still reads `value` (never another holder's). */
const releaseLine = (pane: number, value: string) =>
  `set -p -F -t %${pane} ${CLAIM_OPTION} '#{?#{==:#{${CLAIM_OPTION}},${value}},,#{${CLAIM_OPTION}}}'`

/** Whether a claim on the pane (as its flags read it) belongs to another TermPilot process that is alive. */
export const claimedElsewhere = (claim: string | null): boolean => {
  if (claim === null) return false
  const state = holderState(claim)
  return state._tag === "Alive" || state._tag === "Foreign"
}

/**
 * Readiness as every TermPilot process must see it: a pane another live process claimed (it is
 * typing there, or a command it typed runs there) is `busy`, whatever this process's stream says;
 * only tmux's own reasons (`interactive`) and a missing integration still show.
 */
export const claimAware = (readiness: Readiness, claim: string | null): Readiness =>
  readiness === "interactive" || readiness === "shell_integration_required" || !claimedElsewhere(claim)
    ? readiness
    : "busy"

/** The flag row in a reply, when it is the row of `%pane`. */
const rowOf = (
  pane: number,
  reply: { readonly ok: boolean; readonly lines: ReadonlyArray<string> } | undefined
) => {
  if (reply?.ok !== true) return null
  const row = parseFields(FLAG_FIELDS, reply.lines[0] ?? "")
  return row !== null && row.pane_id === `%${pane}` ? row : null
}

/**
 * This process's claim on one pane: the value it wrote, how many operations hold it, whether a
 * command of ours holds it, one attempt at a time. Changed only through its methods.
 */
export class PaneClaimState {
  private value: string | null = null
  private holds = 0
  private command = false
  readonly lock = Semaphore.makeUnsafe(1)

  /** Whether this process holds the claim. */
  get held(): boolean {
    return this.value !== null
  }

  /** A command of ours typed there holds the claim until its prompt comes back. */
  get commandHold(): boolean {
    return this.command
  }

  /** The claim is the command's now (released by `endCommandHold` and one `releasePane`). */
  holdForCommand(): void {
    this.command = true
  }

  /** The command's prompt came back: whether the command held the claim (then one hold is to be given back). */
  endCommandHold(): boolean {
    if (!this.command) return false
    this.command = false
    return true
  }

  /** Claimed now with `value`: one hold. */
  took(value: string): void {
    this.value = value
    this.holds = 1
  }

  /** One more hold of the claim already held. */
  holdAgain(): void {
    this.holds++
  }

  /** One hold given back: the value to clear in tmux when it was the last, else null. */
  giveBack(): string | null {
    if (this.value === null || --this.holds > 0) return null
    return this.dropAll()
  }

  /** Every hold dropped at once: the value to clear in tmux, null when none was held. */
  dropAll(): string | null {
    const value = this.value
    this.value = null
    this.holds = 0
    return value
  }
}

/** What a claim attempt gives: the pane's flags read right after it (null: no such pane). */
export interface Claimed {
  readonly row: FlagRow
}

/**
 * Claims `%pane` for this process over `client` (the one that streams it), and reads its flags in
 * the same write so that they are ordered after the claim. Held by this process already (a command
 * of ours runs there): one more hold. Held by another live process, or by something that is not
 * TermPilot: `session_claimed`, nothing sent. Every successful claim is paired with one
 * `releasePane`.
 */
export const claimPane = (
  client: ControlClient,
  pane: number,
  state: PaneClaimState,
  sessionId: string
): Effect.Effect<Claimed, TermPilotError> =>
  state.lock.withPermits(1)(
    Effect.gen(function* () {
      if (state.held) {
        const [flags] = yield* client.commands([flagsLine(pane)])
        const row = rowOf(pane, flags)
        if (row === null) return yield* Effect.fail(sessionNotFound(sessionId))
        state.holdAgain()
        return { row }
      }
      for (let attempt = 0; attempt < 2; attempt++) {
        const value = ownClaim()
        // Not cut short between tmux setting the claim and this process noting it (bounded by the
        // client's timeout); should the reply not come, the claim is cleared if it was set.
        const [, flags] = yield* Effect.uninterruptible(
          client
            .commands([claimLine(pane, value), flagsLine(pane)])
            .pipe(
              Effect.tapError(() => Effect.sync(() => client.request([releaseLine(pane, value)], false, [])))
            )
        )
        const row = rowOf(pane, flags)
        const held = row?.["@termpilot_claim"] ?? ""
        if (row !== null && (held === value || (held !== "" && holderState(held)._tag === "Own"))) {
          // Taken now, or ours already (a release of this process's that did not arrive).
          state.took(held)
          return { row }
        }
        // No such pane (a claim set on it then is gone with it), or released in between: say so, or try again.
        if (row === null) return yield* Effect.fail(sessionNotFound(sessionId))
        if (held === "") continue
        const holder = holderState(held)
        if (holder._tag !== "Dead")
          return yield* Effect.fail(sessionClaimed(sessionId, describeHolder(holder)))
        yield* client.commands([releaseLine(pane, held)])
      }
      return yield* Effect.fail(
        fail(
          "session_claimed",
          `Session '${sessionId}' was claimed and released by other TermPilot processes while this one tried to claim it. Nothing was sent; try again.`
        )
      )
    })
  )

/**
 * Gives back one hold of this process's claim on `%pane`; the last one clears it in tmux (fire and
 * forget over `client`: should it not arrive, the next claimer finds this process alive and the
 * claim held — or, once this process is gone, takes it over).
 */
export const releasePane = (client: ControlClient | null, pane: number, state: PaneClaimState): void => {
  const value = state.giveBack()
  if (value !== null) client?.request([releaseLine(pane, value)], false, [])
}

/**
 * Drops every hold of this process's claim on `%pane` at once (the server is being closed) and
 * clears it in tmux over `client`; `done` runs when tmux answered (at once when nothing was held).
 */
export const releaseAll = (
  client: ControlClient,
  pane: number,
  state: PaneClaimState,
  done: () => void
): void => {
  const value = state.dropAll()
  if (value === null) done()
  else client.request([releaseLine(pane, value)], false, [done])
}
