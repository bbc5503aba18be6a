/**
 * ClaimValue — the value a TermPilot process writes on a pane or session it is about to type into
 * (tmux: the pane option `@termpilot_claim`; iTerm2: the session variable `user.termpilot_claim`),
 * pure: who holds it (host, pid, the process's start time, a random nonce per process) and when it
 * was taken. Every TermPilot process of the person reads the same claim, so exactly one of them
 * types into a pane at a time (specs/security.md, "One command per pane across processes").
 */

/** A parsed claim. */
export interface Claim {
  /** The host the holder runs on (sanitized `os.hostname()`). */
  readonly host: string
  readonly pid: number
  /** The holder's start time as its OS reports it (Linux: /proc starttime ticks), "0" when unknown. */
  readonly start: string
  /** Random per process: tells two processes apart even when a pid is reused. */
  readonly nonce: string
  /** When it was taken, ms since the epoch. */
  readonly at: number
}

const PREFIX = "tp1"

/** Only these characters ever reach a tmux command line or a variable: no quoting questions. */
export const claimSafe = (text: string): string => text.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 64) || "_"

/** `tp1.<host>.<pid>.<start>.<nonce>.<at>` (the host has its dots turned into `_`). */
export const formatClaim = (claim: Claim): string =>
  [
    PREFIX,
    claimSafe(claim.host).replace(/\./g, "_"),
    claim.pid,
    claimSafe(claim.start),
    claimSafe(claim.nonce),
    claim.at
  ].join(".")

/** The claim in `value`; null when it is none of ours (malformed, or another version). */
export const parseClaim = (value: string): Claim | null => {
  const match =
    /^tp1\.([A-Za-z0-9_-]{1,64})\.([1-9]\d{0,9})\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{1,64})\.(\d{1,15})$/.exec(
      value
    )
  if (match === null) return null
  return { host: match[1]!, pid: Number(match[2]), start: match[3]!, nonce: match[4]!, at: Number(match[5]) }
}

/** Whether two claims name the same holder process (the time taken aside). */
export const sameHolder = (a: Claim, b: Claim): boolean =>
  a.host === b.host && a.pid === b.pid && a.start === b.start && a.nonce === b.nonce
