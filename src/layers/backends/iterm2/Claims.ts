/**
 * The iTerm2 claim: one TermPilot command per iTerm2 session across every TermPilot process of the
 * person (specs/security.md, "One command per session across processes", iTerm2). The session
 * variable `user.termpilot_claim` (src/domain/iterm2/ClaimVariable.ts) holds the claim
 * (src/domain/ClaimValue.ts) of the process whose command was typed there and has not ended. It is
 * read, and written, inside the same iTerm2 transaction as the check and the send, so of two
 * processes only one can find it free. This process's claims are released (compare-and-clear, again
 * inside a transaction) once the command's prompt comes back, and all of them when the process
 * shuts down; a claim whose holder died is taken over (src/layers/backends/ClaimHolder.ts).
 */
import { randomBytes } from "node:crypto"
import { Clock, Context, Deferred, Duration, Effect, Layer, Queue, Result, type Scope } from "effect"
import { type Claim, formatClaim, parseClaim, sameHolder } from "../../../domain/ClaimValue.js"
import {
  CLAIM_VARIABLE,
  type ClaimedCommand,
  overByPrompt,
  overByPromptEvent,
  setClaimRequest
} from "../../../domain/iterm2/ClaimVariable.js"
import { promptEventOf } from "../../../domain/iterm2/PromptNotice.js"
import { fail, sessionClaimed, sessionNotFound, type TermPilotError } from "../../../services/Errors.js"
import type { Readiness } from "../../../services/Terminal.js"
import { describeHolder, type HolderState, holderState, ownClaim } from "../ClaimHolder.js"
import { callFor, getPrompt, getVariables, inTransaction } from "./Calls.js"
import { Iterm2Connection, type Iterm2Event } from "./ConnectionService.js"

type Conn = Iterm2Connection["Service"]

/** Who this TermPilot is as a claim holder, and what it knows about any other holder. */
export interface ClaimIdentity {
  /** A claim of this holder, taken at `now`. */
  readonly claim: (now: number) => string
  /** The holder of `value`: this one (Own), another living or dead TermPilot, or not a TermPilot claim. */
  readonly state: (value: string) => HolderState
}

/**
 * This process as ClaimHolder describes it (host, pid, start time), with a nonce of its own: one
 * per backend instance, which is one per process outside tests (two MCP servers in one test process
 * are two holders). Another instance of this same process is a living holder, never "Own".
 */
export const claimIdentity = (nonce: string = randomBytes(8).toString("hex")): ClaimIdentity => {
  const process0 = parseClaim(ownClaim(0))
  const me: Claim = {
    host: process0?.host ?? "_",
    pid: process0?.pid ?? process.pid,
    start: process0?.start ?? "0",
    nonce,
    at: 0
  }
  return {
    claim: (now) => formatClaim({ ...me, at: now }),
    state: (value) => {
      const claim = parseClaim(value)
      if (claim !== null && sameHolder(claim, me)) return { _tag: "Own" }
      const state = holderState(value)
      return state._tag === "Own" && claim !== null ? { _tag: "Alive", claim } : state
    }
  }
}

/** What the claim value read inside a transaction allows. */
export type ClaimCheck =
  | { readonly _tag: "Free" }
  | { readonly _tag: "Own" }
  /** Left by a TermPilot process that died: may be taken over. */
  | { readonly _tag: "Dead"; readonly holder: string }
  /** Held by another living TermPilot, or by a value TermPilot did not write: refuse. */
  | { readonly _tag: "Held"; readonly holder: string }

/** The check for a claim variable's value as iTerm2 reported it (parsed JSON; null when unset). */
export const checkClaim = (identity: ClaimIdentity, raw: unknown): ClaimCheck => {
  if (raw === null || raw === undefined || raw === "") return { _tag: "Free" }
  if (typeof raw !== "string") {
    return { _tag: "Held", holder: describeHolder({ _tag: "Foreign", value: JSON.stringify(raw) }) }
  }
  const state = identity.state(raw)
  switch (state._tag) {
    case "Own":
      return { _tag: "Own" }
    case "Dead":
      return { _tag: "Dead", holder: describeHolder(state) }
    default:
      return { _tag: "Held", holder: describeHolder(state) }
  }
}

/** A session's readiness as every process reports it: never `ready` while another holder's claim stands. */
export const claimedReadiness = (identity: ClaimIdentity, readiness: Readiness, raw: unknown): Readiness =>
  readiness === "ready" && checkClaim(identity, raw)._tag === "Held" ? "busy" : readiness

/** How often a held claim's command is looked at, besides the prompt events that end it at once. */
const POLL_MS = 1_000
/** How long the shutdown may spend releasing this process's claims. */
const SHUTDOWN_RELEASE_MS = 3_000

/** One claim this process wrote (or may have written), for the command it guards. */
interface Held extends ClaimedCommand {
  readonly value: string
  /** Completed when a prompt event shows the command over. */
  readonly over: Deferred.Deferred<void>
}

/** What `take` hands back: the claim written for one send, to pass to `hold`. */
export interface Ticket {
  readonly held: Held
}

export class Iterm2Claims extends Context.Service<
  Iterm2Claims,
  {
    readonly identity: ClaimIdentity
    /**
     * Inside the caller's transaction, with the claim value read there: fails with session_claimed
     * when another living holder (or a foreign value) has it; nothing is written.
     */
    readonly check: (sessionId: string, raw: unknown) => Effect.Effect<ClaimCheck, TermPilotError>
    /**
     * Inside the caller's transaction, after `check` allowed it: writes a fresh claim of this
     * process for the command about to be typed at `promptId`. A failure means nothing may be
     * sent; a claim that may have been written is released in the background.
     */
    readonly take: (sessionId: string, promptId: string | null) => Effect.Effect<Ticket, TermPilotError>
    /** After the send (or its failure): keep the claim until that command is over, then release it. */
    readonly hold: (ticket: Ticket) => Effect.Effect<void>
    /** Inside the caller's transaction: clears a dead holder's claim (a single send writes none). */
    readonly clearDead: (sessionId: string) => Effect.Effect<void, TermPilotError>
  }
>()("termpilot/Iterm2Claims") {}

/** Whether an event shows the command of `held` over (a dropped connection does not). */
const overByEvent = (held: Held, event: Iterm2Event): boolean =>
  event._tag === "Notification" && overByPromptEvent(held, promptEventOf(held.sessionId, event.notification))

/** One set of the claim variable; its reply's status turned into a failure. */
const writeClaim = (
  conn: Conn,
  sessionId: string,
  value: string | null
): Effect.Effect<void, TermPilotError> =>
  callFor(conn, setClaimRequest(sessionId, value), "variable_response").pipe(
    Effect.flatMap((reply) => {
      const status = reply.status ?? "OK"
      if (status === "OK") return Effect.void
      if (status === "SESSION_NOT_FOUND") return Effect.fail(sessionNotFound(sessionId))
      return Effect.fail(
        fail(
          "iterm2_unavailable",
          `iTerm2 refused to set ${CLAIM_VARIABLE} on session '${sessionId}' (${status}).`
        )
      )
    })
  )

/** Compare-and-clear in one transaction: unset the claim only while it still holds `value`. */
export const releaseClaim = (
  conn: Conn,
  sessionId: string,
  value: string
): Effect.Effect<void, TermPilotError> =>
  inTransaction(
    conn,
    Effect.gen(function* () {
      const [current] = yield* getVariables(conn, sessionId, [CLAIM_VARIABLE])
      if (current === value) yield* writeClaim(conn, sessionId, null)
    })
  )

export const makeIterm2Claims = (
  conn: Conn,
  identity: ClaimIdentity = claimIdentity()
): Effect.Effect<Iterm2Claims["Service"], never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    /** The claim this process holds per session (the newest; an older one's watcher just stops). */
    const held = new Map<string, Held>()
    const current = (h: Held) => held.get(h.sessionId) === h
    const forget = (h: Held) => Effect.sync(() => current(h) && held.delete(h.sessionId))

    // Prompt events end a held claim at once; the poll below is the fallback (missed events,
    // a dropped connection, a prompt subscription that is gone).
    const events = yield* conn.events
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.flatMap(Queue.take(events), (event) =>
          Effect.forEach(
            [...held.values()].filter((h) => overByEvent(h, event)),
            (h) => Deferred.succeed(h.over, undefined),
            { discard: true }
          )
        )
      )
    )

    /** Until the command of `h` is over (or the session gone), then compare-and-clear, retried. */
    const watch = (h: Held): Effect.Effect<void> =>
      Effect.gen(function* () {
        let over = false
        while (current(h)) {
          if (!over) {
            const signalled = yield* Deferred.await(h.over).pipe(
              Effect.as(true),
              Effect.timeoutOrElse({
                duration: Duration.millis(POLL_MS),
                orElse: () => Effect.succeed(false)
              })
            )
            if (!current(h)) return
            if (signalled) over = true
            else {
              const prompt = yield* Effect.result(getPrompt(conn, h.sessionId))
              if (Result.isFailure(prompt)) {
                if (prompt.failure.code === "session_not_found") return yield* forget(h)
                continue
              }
              over = overByPrompt(h, prompt.success, yield* Clock.currentTimeMillis)
            }
          }
          if (!over) continue
          const released = yield* Effect.result(releaseClaim(conn, h.sessionId, h.value))
          if (Result.isSuccess(released) || released.failure.code === "session_not_found")
            return yield* forget(h)
          yield* Effect.sleep(Duration.millis(POLL_MS))
        }
      })

    const hold = (ticket: Ticket) =>
      Effect.asVoid(Effect.forkIn(Effect.interruptible(watch(ticket.held)), scope))

    // Best effort at shutdown: every claim still held, compare-and-clear, bounded.
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...held.values()], (h) => Effect.ignore(releaseClaim(conn, h.sessionId, h.value)), {
        discard: true
      }).pipe(Effect.timeout(Duration.millis(SHUTDOWN_RELEASE_MS)), Effect.ignore)
    )

    return Iterm2Claims.of({
      identity,
      check: (sessionId, raw) => {
        const found = checkClaim(identity, raw)
        return found._tag === "Held"
          ? Effect.fail(sessionClaimed(sessionId, found.holder))
          : Effect.succeed(found)
      },
      take: (sessionId, promptId) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const previous = held.get(sessionId)
          // A fresh value per command, so a compare-and-clear of an earlier one never clears it.
          const at = previous !== undefined && previous.takenAt >= now ? previous.takenAt + 1 : now
          const h: Held = {
            sessionId,
            value: identity.claim(at),
            promptId,
            takenAt: at,
            over: yield* Deferred.make<void>()
          }
          // Known before the request leaves: a claim that may have been written is always released.
          held.set(sessionId, h)
          const written = yield* Effect.result(writeClaim(conn, sessionId, h.value))
          if (Result.isFailure(written)) {
            yield* hold({ held: h })
            return yield* Effect.fail(written.failure)
          }
          return { held: h }
        }),
      hold,
      clearDead: (sessionId) => writeClaim(conn, sessionId, null)
    })
  })

export const Iterm2ClaimsLive = Layer.effect(
  Iterm2Claims,
  Effect.flatMap(Iterm2Connection, (conn) => makeIterm2Claims(conn))
)
