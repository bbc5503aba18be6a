/**
 * ClientHost — whether a terminal session hosts the MCP client TermPilot serves (Claude Code in a
 * tmux pane, say): keys typed there would land in the assistant's own input, so TermPilot never
 * types there (`session_hosts_client`).
 *
 * The rule: the session hosts the client when TermPilot's own ancestor chain (TermPilot itself,
 * its parent, … up to, not including, pid 1) holds the session's process (tmux `pane_pid`, iTerm2's
 * `pid`) or a process whose controlling terminal is the session's terminal (its tty device). The
 * first catches the usual case (the pane's shell started the client, which started TermPilot); the
 * second also catches a client whose parent shell is gone or that was started on that terminal by
 * another process (it reads the person's keys from that terminal all the same).
 *
 * Read from /proc where there is one (Linux: the controlling terminal as /proc's `tty_nr`, compared
 * with the st_rdev of the session's tty, exact), else (macOS) from one bounded `ps` run (the
 * terminal by name). The chain is read once and kept: it only ever loses members (an ancestor
 * exits and TermPilot is re-parented), so a kept chain can only claim too much, never too little;
 * a session it matches is checked again against a fresh read (with `ps`, one at most 5 s old). Cannot tell (no /proc, `ps` failed):
 * false. A session on another host is never matched (the caller passes nothing for it).
 */
import { execFileSync } from "node:child_process"
import { statSync } from "node:fs"
import { hasProc, statOf } from "./ProcStat.js"

/** TermPilot's ancestors: their pids and whether one of them has a given terminal as its own. */
export interface Ancestry {
  readonly pids: ReadonlySet<number>
  /** Whether the terminal at `ttyPath` (e.g. `/dev/pts/3`) is the controlling terminal of one of them. */
  readonly holdsTerminal: (ttyPath: string) => boolean
}

/** Ancestors walked, at most (a deeper chain is cut there: what was read still counts). */
const MAX_DEPTH = 64

/** The longest `ps` may take (it runs once, and again only when a session matched). */
const PS_TIMEOUT_MS = 2000

/** Only device paths are looked at: a tty as tmux or iTerm2 reports it. */
const isDevicePath = (path: string): boolean => /^\/dev\/[A-Za-z0-9/._-]+$/.test(path) && !path.includes("..")

/** The chain from /proc: pids and controlling terminals (`tty_nr`, 0 for none). */
export const procAncestry = (start: number = process.pid): Ancestry | null => {
  if (!hasProc) return null
  const pids = new Set<number>()
  const ttys = new Set<number>()
  let pid = start
  for (let depth = 0; depth < MAX_DEPTH && pid > 1 && !pids.has(pid); depth++) {
    const stat = statOf(pid)
    if (stat === null) break
    pids.add(pid)
    if (stat.ttyNr !== 0) ttys.add(stat.ttyNr)
    pid = stat.ppid
  }
  if (pids.size === 0) return null
  return {
    pids,
    holdsTerminal: (ttyPath) => {
      if (ttys.size === 0 || !isDevicePath(ttyPath)) return false
      const rdev = statSync(ttyPath, { throwIfNoEntry: false })?.rdev
      return rdev !== undefined && rdev !== 0 && ttys.has(rdev)
    }
  }
}

/**
 * The chain from `ps -A -o pid=,ppid=,tty=` output (one line per process; the tty by name, `??` or
 * `?` for none): what macOS, without /proc, gives. Pure.
 */
export const psAncestry = (output: string, start: number): Ancestry | null => {
  const table = new Map<number, { readonly ppid: number; readonly tty: string | null }>()
  for (const line of output.split("\n")) {
    const [pid, ppid, tty] = line.trim().split(/\s+/)
    if (pid === undefined || ppid === undefined || !/^\d+$/.test(pid) || !/^\d+$/.test(ppid)) continue
    table.set(Number(pid), { ppid: Number(ppid), tty: tty === undefined || /^[?-]+$/.test(tty) ? null : tty })
  }
  const pids = new Set<number>()
  const ttys = new Set<string>()
  let pid = start
  for (let depth = 0; depth < MAX_DEPTH && pid > 1 && !pids.has(pid); depth++) {
    const row = table.get(pid)
    if (row === undefined) break
    pids.add(pid)
    if (row.tty !== null) ttys.add(row.tty.startsWith("/dev/") ? row.tty : `/dev/${row.tty}`)
    pid = row.ppid
  }
  if (pids.size === 0) return null
  return { pids, holdsTerminal: (ttyPath) => isDevicePath(ttyPath) && ttys.has(ttyPath) }
}

/** The chain from one bounded `ps` run; null when it fails. */
export const psAncestryOfSystem = (start: number = process.pid): Ancestry | null => {
  try {
    const output = execFileSync("ps", ["-A", "-o", "pid=,ppid=,tty="], {
      encoding: "utf8",
      timeout: PS_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
      stdio: ["ignore", "pipe", "ignore"]
    })
    return psAncestry(output, start)
  } catch {
    return null
  }
}

/** Whether `ancestry` holds the session whose process is `pid` and terminal is `tty`. */
export const ancestryHolds = (ancestry: Ancestry | null, pid: number | null, tty: string | null): boolean =>
  ancestry !== null &&
  ((pid !== null && pid > 1 && ancestry.pids.has(pid)) || (tty !== null && ancestry.holdsTerminal(tty)))

/**
 * A check over a kept chain read by `read`: a match is confirmed against a fresh read (kept from
 * then on), unless the kept one was read less than `confirmEveryMs` ago (for a costly `read`: a
 * stale match can only refuse a send, never allow one). `read` is called lazily, once up front.
 */
export const makeClientHostCheck = (
  read: () => Ancestry | null,
  confirmEveryMs = 0,
  now: () => number = Date.now
) => {
  let kept: Ancestry | null | undefined
  let readAt = 0
  const fresh = () => {
    kept = read()
    readAt = now()
    return kept
  }
  return (pid: number | null, tty: string | null): boolean => {
    if (!ancestryHolds(kept === undefined ? fresh() : kept, pid, tty)) return false
    if (confirmEveryMs > 0 && now() - readAt < confirmEveryMs) return true
    return ancestryHolds(fresh(), pid, tty)
  }
}

/** How long a `ps` reading confirms a match (a listing of many panes, or calls in a row, run `ps` once). */
const PS_CONFIRM_MS = 5_000

/**
 * The check for this process: /proc where there is one (every match confirmed by a fresh read),
 * else `ps` (a match confirmed by a reading at most 5 s old).
 */
export const hostsThisClient: (pid: number | null, tty: string | null) => boolean = hasProc
  ? makeClientHostCheck(() => procAncestry())
  : makeClientHostCheck(() => psAncestryOfSystem(), PS_CONFIRM_MS)
