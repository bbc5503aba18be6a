/**
 * ClaimHolder — this process as a claim holder, and whether another holder still lives: the
 * claim value this process writes (src/domain/ClaimValue.ts), and the liveness check that lets a
 * claim left by a TermPilot that died be taken over (never held forever): a holder on this host
 * whose pid is gone, or whose pid now belongs to a process started at another time, is dead.
 */
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { hostname } from "node:os"
import { type Claim, claimSafe, formatClaim, parseClaim, sameHolder } from "../../domain/ClaimValue.js"

/** A process's start time as /proc tells it (clock ticks after boot); "0" where there is no /proc. */
export const processStart = (pid: number): string | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return fields[19] ?? "0"
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" && hasProc() ? null : "0"
  }
}

let procKnown: boolean | undefined
const hasProc = (): boolean => {
  if (procKnown === undefined) {
    try {
      readFileSync("/proc/self/stat")
      procKnown = true
    } catch {
      procKnown = false
    }
  }
  return procKnown
}

const ownHost = claimSafe(hostname()).replace(/\./g, "_")
const ownStart = processStart(process.pid) ?? "0"
const ownNonce = randomBytes(8).toString("hex")

/** This process's claim, taken now. */
export const ownClaim = (now: number = Date.now()): string =>
  formatClaim({ host: ownHost, pid: process.pid, start: ownStart, nonce: ownNonce, at: now })

/** Whether `value` is a claim this very process wrote. */
export const isOwnClaim = (value: string): boolean => {
  const claim = parseClaim(value)
  return (
    claim !== null &&
    sameHolder(claim, { host: ownHost, pid: process.pid, start: ownStart, nonce: ownNonce, at: 0 })
  )
}

/** What is known about the holder of a claim value. */
export type HolderState =
  | { readonly _tag: "Own" }
  | { readonly _tag: "Alive"; readonly claim: Claim }
  /** Its process is gone (or its pid belongs to another process now): the claim may be taken over. */
  | { readonly _tag: "Dead"; readonly claim: Claim }
  /** Not a claim TermPilot writes: held, fail closed, until the person clears it. */
  | { readonly _tag: "Foreign"; readonly value: string }

/** Whether the process behind `value` still lives (only decidable for holders on this host). */
export const holderState = (value: string): HolderState => {
  const claim = parseClaim(value)
  if (claim === null) return { _tag: "Foreign", value }
  if (isOwnClaim(value)) return { _tag: "Own" }
  if (claim.host !== ownHost) return { _tag: "Alive", claim }
  try {
    process.kill(claim.pid, 0)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ESRCH") return { _tag: "Dead", claim }
  }
  const start = processStart(claim.pid)
  if (start === null) return { _tag: "Dead", claim }
  if (claim.start !== "0" && start !== "0" && start !== claim.start) return { _tag: "Dead", claim }
  return { _tag: "Alive", claim }
}

/** A person-readable account of who holds a claim, for refusals. */
export const describeHolder = (state: HolderState): string => {
  switch (state._tag) {
    case "Own":
      return "this TermPilot process"
    case "Alive":
    case "Dead":
      return `another TermPilot process (pid ${state.claim.pid} on ${state.claim.host}, since ${new Date(state.claim.at).toISOString()})`
    case "Foreign":
      return `something that is not a TermPilot process (the claim reads '${state.value.slice(0, 80)}')`
  }
}
