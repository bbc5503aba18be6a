/**
 * Foreground — what holds a pane's terminal, read from /proc (Linux): whether the shell that drew
 * the prompt is the foreground process group of its terminal (while any other program runs there —
 * `sleep`, `cat` of a recording — it is not, whatever that program prints); for a prompt drawn by a
 * nested shell without tmux (over ssh, in a container), whether the foreground is a transport
 * program started under the shell that exported the pane's nested secret; which transport holds a
 * pane whose command runs; and the chain of programs a prompt is reached through (`via`). Null where
 * it cannot be read: no /proc (macOS), or the pane's processes are not visible from here.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { hasProc, statOf } from "../ProcStat.js"

export { readProcText } from "../ProcStat.js"

/** Programs that carry a person to another shell: remote logins, container execs, user switches, shells. */
export const TRANSPORTS: ReadonlySet<string> = new Set([
  "ssh",
  "mosh-client",
  "autossh",
  "et",
  "docker",
  "podman",
  "kubectl",
  "oc",
  "nerdctl",
  "lxc",
  "incus",
  "machinectl",
  "nsenter",
  "distrobox",
  "toolbox",
  "sudo",
  "su",
  "doas",
  "runuser",
  "bash",
  "zsh",
  "sh",
  "dash",
  "ksh",
  "fish"
])

/** Shells among TRANSPORTS: with a script or `-c` they run a command, not a prompt. */
const SCRIPT_SHELLS: ReadonlySet<string> = new Set(["bash", "zsh", "sh", "dash", "ksh", "fish"])

/** Options of those shells that take a value (`bash --rcfile FILE`, `-o OPTION`; fish's `-C COMMAND`). */
const SHELL_VALUE_OPTIONS: ReadonlySet<string> = new Set(["--rcfile", "--init-file", "-o", "+o", "-O", "+O"])
const FISH_VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "-C",
  "--init-command",
  "-d",
  "--debug",
  "-o",
  "--debug-output"
])

/**
 * Whether `program` with these arguments is a shell that runs a script or a `-c` command (`bash
 * build.sh`, `sh -c …`, `fish --command=…`) rather than an interactive shell: no `-i`, and a `c`
 * among its short flags, `--command`, or an operand. Unread arguments (null): not known to.
 */
export const shellRunsScript = (program: string, args: ReadonlyArray<string> | null): boolean => {
  if (!SCRIPT_SHELLS.has(program) || args === null || args.includes("-i") || args.includes("--interactive"))
    return false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") return i + 1 < args.length
    if ((program === "fish" ? FISH_VALUE_OPTIONS : SHELL_VALUE_OPTIONS).has(arg)) {
      i++
      continue
    }
    if (arg === "--command" || arg.startsWith("--command=")) return true
    if (arg.startsWith("--")) continue
    if (/^[-+][A-Za-z]+$/.test(arg)) {
      if (arg.startsWith("-") && arg.includes("c")) return true
      continue
    }
    return true
  }
  return false
}

/** The names from `ancestor` (exclusive) down to `pid` (inclusive); null when `pid` does not descend from it. */
const chain = (ancestor: number, pid: number): ReadonlyArray<string> | null => {
  const names: Array<string> = []
  let current = pid
  for (let depth = 0; depth < 32; depth++) {
    if (current === ancestor) return names.reverse()
    const stat = statOf(current)
    if (stat === null || current <= 1) return null
    names.push(stat.comm)
    current = stat.ppid
  }
  return null
}

const visible = (panePid: number | null): panePid is number =>
  hasProc && panePid !== null && existsSync(`/proc/${panePid}`)

/**
 * Whether `shellPid` (the shell that announced the prompt's token; else the pane's own process
 * `panePid`) is the foreground process group of its terminal. False when that process is gone or
 * a zombie; null when /proc cannot tell.
 */
export const shellHoldsForeground = (shellPid: number | null, panePid: number | null): boolean | null => {
  if (!visible(panePid)) return null
  const stat = statOf(shellPid ?? panePid)
  if (stat === null || stat.state === "Z") return false
  return stat.tpgid > 0 && stat.tpgid === stat.pgrp
}

/** The programs a TermPilot snippet runs in. */
const SHELLS: ReadonlySet<string> = new Set(["bash", "zsh", "fish"])

/**
 * Whether `shellPid` is still a shell (not a program it `exec`ed, which keeps its pid) and the
 * pane's process or one of its descendants (not a process elsewhere that reuses an old pid).
 */
export const stillShellOfPane = (shellPid: number, panePid: number | null): boolean => {
  if (!visible(panePid)) return false
  const stat = statOf(shellPid)
  return stat !== null && SHELLS.has(stat.comm) && chain(panePid, shellPid) !== null
}

/** Processes looked at, at most, for a TerminalTable. */
const MAX_PROCESSES = 65_536

/**
 * Which processes are on which terminal, read from /proc once, when first asked: one scan serves
 * every pane of a listing (a scan per pane cost ~3 ms each at 100 panes). Unbounded only by
 * MAX_PROCESSES; null (cannot tell) when /proc cannot be listed or holds more.
 */
export class TerminalTable {
  private byTty: Map<number, Array<number>> | null | undefined

  /** The pids on terminal `ttyNr` when the table was read; null when /proc could not tell. */
  onTerminal(ttyNr: number): ReadonlyArray<number> | null {
    if (this.byTty === undefined) this.byTty = scanTerminals()
    return this.byTty === null ? null : (this.byTty.get(ttyNr) ?? [])
  }
}

const scanTerminals = (): Map<number, Array<number>> | null => {
  let names: ReadonlyArray<string>
  try {
    names = readdirSync("/proc").filter((name) => /^\d+$/.test(name))
  } catch {
    return null
  }
  if (names.length > MAX_PROCESSES) return null
  const byTty = new Map<number, Array<number>>()
  for (const name of names) {
    const tty = statOf(Number(name))?.ttyNr
    if (tty === undefined || tty === 0) continue
    const pids = byTty.get(tty)
    if (pids === undefined) byTty.set(tty, [Number(name)])
    else pids.push(Number(name))
  }
  return byTty
}

/**
 * Whether `shellPid` is the only process on its terminal: no job in the background, nothing it
 * started still there (any of them could write to the terminal unseen). Null when /proc cannot
 * tell. `table` may be shared by the panes of one listing; the shell's own state is read afresh.
 */
export const aloneOnTerminal = (
  shellPid: number,
  panePid: number | null,
  table: TerminalTable = new TerminalTable()
): boolean | null => {
  if (!visible(panePid)) return null
  const shell = statOf(shellPid)
  if (shell === null || shell.ttyNr === 0) return null
  const pids = table.onTerminal(shell.ttyNr)
  return pids === null ? null : pids.every((pid) => pid === shellPid)
}

/**
 * The foreground program of `shellPid`'s terminal when it is another program (its process group
 * leader: `pid`, `name`), with its chain from that shell.
 */
export const foregroundProgram = (
  shellPid: number,
  panePid: number | null
): { readonly pid: number; readonly name: string; readonly via: ReadonlyArray<string> } | null => {
  if (!visible(panePid)) return null
  const shell = statOf(shellPid)
  if (shell === null || shell.tpgid <= 0 || shell.tpgid === shell.pgrp) return null
  const via = chain(shellPid, shell.tpgid)
  const leader = statOf(shell.tpgid)
  return via === null || leader === null ? null : { pid: shell.tpgid, name: leader.comm, via }
}

/** The arguments after the program itself of process `pid` named `comm` (its /proc cmdline); null when unreadable. */
export const argumentsOf = (pid: number, comm: string): ReadonlyArray<string> | null => {
  let argv: Array<string>
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter((a) => a !== "")
  } catch {
    return null
  }
  // A script runs as its interpreter: its arguments follow its own path.
  const self = argv.findIndex((a) => a === comm || a.endsWith(`/${comm}`))
  return argv.slice(self < 0 ? 1 : self + 1)
}

/**
 * For a prompt drawn by a nested shell without tmux: whether a transport program started under
 * `underPid` (the shell that exported the nested secret) holds the terminal, so the prompt can be
 * the one it carries; not a program such as `cat` that merely prints marks.
 */
export const transportHoldsForeground = (underPid: number, panePid: number | null): boolean | null => {
  if (!visible(panePid)) return null
  const program = foregroundProgram(underPid, panePid)
  return program !== null && TRANSPORTS.has(program.name)
}

/** The name and arguments (after the program) of the foreground program of the terminal `panePid` runs on. */
export const foregroundCommand = (
  panePid: number
): { readonly name: string; readonly argv: ReadonlyArray<string> } | null => {
  if (!visible(panePid)) return null
  const pane = statOf(panePid)
  const leader = pane === null || pane.tpgid <= 0 ? null : statOf(pane.tpgid)
  if (pane === null || leader === null) return null
  const argv = argumentsOf(pane.tpgid, leader.comm)
  return argv === null ? null : { name: leader.comm, argv }
}

/** The programs between the pane's first shell and the one whose prompt it shows (empty: that shell itself). */
export const viaOf = (
  rootPid: number | null,
  shellPid: number | null,
  nestedUnder: number | null,
  panePid: number | null
): ReadonlyArray<string> | null => {
  if (!visible(panePid) || rootPid === null) return null
  if (nestedUnder !== null) {
    const program = foregroundProgram(nestedUnder, panePid)
    const head = nestedUnder === rootPid ? [] : chain(rootPid, nestedUnder)
    return program === null || head === null ? null : [...head, ...program.via]
  }
  // The pane's own shell shows the prompt: nothing in between, no walk up /proc.
  if (shellPid === rootPid) return []
  return shellPid === null ? null : chain(rootPid, shellPid)
}
