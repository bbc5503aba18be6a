/**
 * Whether a process is blocked waiting for terminal input, read from /proc (Linux). bash's readline
 * has a window, between drawing its prompt and entering pselect, where a Ctrl-C is handled ("^C" is
 * echoed) but bash does not redraw its prompt until the next key. Tests that send an ETX to an idle
 * prompt on purpose wait until the shell is really in its key wait, so they test TermPilot, not that
 * race.
 */
import { readFileSync } from "node:fs"

/** Syscalls a line editor blocks in while it waits for a key, by architecture. */
const KEY_WAIT_SYSCALLS: Record<string, ReadonlySet<number>> = {
  // read, poll, select, pselect6, ppoll
  x64: new Set([0, 7, 23, 270, 271]),
  // read, pselect6, ppoll
  arm64: new Set([63, 72, 73])
}

const readOr = (path: string): string => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return ""
  }
}

/** True when `pid` sleeps in a read/poll/select-family syscall. */
export const inKeyWait = (pid: number): boolean => {
  const syscalls = KEY_WAIT_SYSCALLS[process.arch]
  if (syscalls === undefined) throw new Error(`KeyWait: no syscall table for ${process.arch}`)
  const stat = readOr(`/proc/${pid}/stat`)
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
  const nr = Number.parseInt(readOr(`/proc/${pid}/syscall`).split(" ")[0] ?? "", 10)
  return state === "S" && syscalls.has(nr)
}

/** Resolves once `pid` waits for a key; rejects after `timeoutMs`. */
export const waitForKeyWait = async (pid: number, timeoutMs = 5_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!inKeyWait(pid)) {
    if (Date.now() > deadline)
      throw new Error(`KeyWait: pid ${pid} not waiting for a key after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 5))
  }
}
