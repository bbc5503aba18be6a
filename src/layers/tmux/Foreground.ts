/**
 * Foreground — whether the shell that drew a pane's prompt holds its terminal's foreground, read
 * from /proc/<pid>/stat (its process group against its terminal's foreground group). While any
 * other program runs there (`sleep`, `cat` of a recording, `tail -f` of a log), it holds the
 * foreground and the shell does not, whatever that program prints. Null where it cannot be read:
 * no /proc (macOS), or the pane's processes are not visible from here (another pid namespace).
 */
import { existsSync, readFileSync } from "node:fs"

const hasProc = existsSync("/proc/self/stat")

/** The state, process group and terminal foreground group of `pid`; null when there is no such process. */
const statOf = (pid: number): { state: string; pgrp: number; tpgid: number } | null => {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1")
  } catch {
    return null
  }
  // pid (comm) state ppid pgrp session tty_nr tpgid …; comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return { state: fields[0] ?? "", pgrp: Number(fields[2]), tpgid: Number(fields[5]) }
}

/**
 * Whether `shellPid` (the shell that announced the prompt's token; else the pane's own process
 * `panePid`) is the foreground process group of its terminal. False when that process is gone or
 * a zombie; null when /proc cannot tell (none here, or the pane's process is not visible).
 */
export const shellHoldsForeground = (shellPid: number | null, panePid: number | null): boolean | null => {
  if (!hasProc || panePid === null || !existsSync(`/proc/${panePid}`)) return null
  const stat = statOf(shellPid ?? panePid)
  if (stat === null || stat.state === "Z") return false
  return stat.tpgid > 0 && stat.tpgid === stat.pgrp
}
