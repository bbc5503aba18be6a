/**
 * ProcStat — the small /proc files (Linux) the backends read about processes: a file's text read
 * into one shared buffer, and the fields of /proc/<pid>/stat they use (name, state, parent,
 * process group, controlling terminal, its foreground group). Null where /proc cannot tell.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs"

/** Whether this system has a /proc to read (Linux; not macOS). */
export const hasProc = existsSync("/proc/self/stat")

/** One buffer for the small /proc files read here (stat, status): no allocation or fstat per read. */
const procBuffer = Buffer.allocUnsafe(4096)

/**
 * The text (latin1) of a small /proc file; null when it cannot be read. Read into one shared
 * buffer (a listing reads two per pane); a file that fills it is read again whole.
 */
export const readProcText = (path: string): string | null => {
  let fd: number
  try {
    fd = openSync(path, "r")
  } catch {
    return null
  }
  try {
    const length = readSync(fd, procBuffer, 0, procBuffer.length, 0)
    return length < procBuffer.length
      ? procBuffer.toString("latin1", 0, length)
      : readFileSync(path, "latin1")
  } catch {
    return null
  } finally {
    try {
      closeSync(fd)
    } catch {
      // Nothing to do: the text, if any, was read.
    }
  }
}

export interface Stat {
  readonly comm: string
  readonly state: string
  readonly ppid: number
  readonly pgrp: number
  /** The controlling terminal's device number (0: none), encoded as a stat's st_rdev is. */
  readonly ttyNr: number
  readonly tpgid: number
}

/** /proc/<pid>/stat; null when there is no such process. */
export const statOf = (pid: number): Stat | null => {
  const stat = readProcText(`/proc/${pid}/stat`)
  if (stat === null) return null
  // pid (comm) state ppid pgrp session tty_nr tpgid …; comm may hold spaces and parentheses.
  const close = stat.lastIndexOf(")")
  const fields = stat.slice(close + 2).split(" ")
  return {
    comm: stat.slice(stat.indexOf("(") + 1, close),
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    ttyNr: Number(fields[4]),
    tpgid: Number(fields[5])
  }
}
