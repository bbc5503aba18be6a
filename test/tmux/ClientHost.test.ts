/**
 * ClientHost — TermPilot's ancestor chain as /proc and as `ps` give it (the two agree on this
 * machine), a real process on a real PTY holding that terminal by either reading (exactly: not
 * /dev/null, not a path outside /dev), macOS's `ps` output read as such, and the kept chain
 * confirmed by a fresh read before a session is called the client's.
 */
import { readFileSync } from "node:fs"
import * as pty from "node-pty"
import { afterAll, describe, expect, it } from "vitest"
import {
  type Ancestry,
  ancestryHolds,
  makeClientHostCheck,
  procAncestry,
  psAncestry,
  psAncestryOfSystem
} from "../../src/layers/backends/ClientHost.js"
import { waitUntil } from "../support/tmux/Recorder.js"

const linux = process.platform === "linux"

const spawned: Array<pty.IPty> = []
afterAll(() => {
  for (const p of spawned) p.kill("SIGKILL")
})

/** A `sleep` on a PTY of its own (once it runs: its terminal is set before the exec), and that PTY's path. */
const onPty = async (): Promise<{ readonly pid: number; readonly tty: string }> => {
  const p = pty.spawn("sleep", ["30"], {
    cols: 80,
    rows: 24,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }
  })
  spawned.push(p)
  const tty = (p as unknown as { _pty?: string })._pty
  if (tty === undefined) throw new Error("node-pty gave no PTY path")
  await waitUntil("sleep to start on its PTY", () => {
    try {
      return readFileSync(`/proc/${p.pid}/stat`, "latin1").includes("(sleep)")
    } catch {
      return false
    }
  })
  return { pid: p.pid, tty }
}

describe.runIf(linux)("the ancestor chain, read from /proc and from ps", () => {
  it("holds this process and its parent, the same from both readings", () => {
    const proc = procAncestry(process.pid)
    const ps = psAncestryOfSystem(process.pid)
    expect(proc?.pids.has(process.pid)).toBe(true)
    expect(proc?.pids.has(process.ppid)).toBe(true)
    expect(proc?.pids.has(1)).toBe(false)
    expect([...(ps?.pids ?? [])].sort()).toEqual([...(proc?.pids ?? [])].sort())
  })

  it("a process on a PTY holds that terminal, by device (/proc) and by name (ps); nothing else does", async () => {
    const { pid, tty } = await onPty()
    for (const chain of [procAncestry(pid), psAncestryOfSystem(pid)]) {
      expect(chain?.holdsTerminal(tty)).toBe(true)
      expect(chain?.holdsTerminal("/dev/null")).toBe(false)
      expect(chain?.holdsTerminal(`/dev/../${tty}`)).toBe(false)
      expect(ancestryHolds(chain ?? null, null, tty)).toBe(true)
      expect(ancestryHolds(chain ?? null, pid, null)).toBe(true)
    }
    // This test process is not on that PTY, and `sleep` is not among its ancestors.
    const mine = procAncestry(process.pid)
    expect(mine?.holdsTerminal(tty)).toBe(false)
    expect(ancestryHolds(mine ?? null, pid, tty)).toBe(false)
  })
})

describe("ps output as macOS prints it", () => {
  const output = [
    "    1     0 ??",
    "  400     1 ??",
    "  512   400 ttys003",
    "  600   512 ttys003",
    "  700   600 ttys003",
    "  800     1 ttys004",
    "garbage line"
  ].join("\n")

  it("walks from the start to pid 1 (excluded), with the terminals by name", () => {
    const chain = psAncestry(output, 700)
    expect([...(chain?.pids ?? [])].sort()).toEqual([400, 512, 600, 700])
    expect(chain?.holdsTerminal("/dev/ttys003")).toBe(true)
    expect(chain?.holdsTerminal("/dev/ttys004")).toBe(false)
    expect(chain?.holdsTerminal("ttys003")).toBe(false)
    expect(psAncestry(output, 999)).toBeNull()
  })
})

describe("the kept chain", () => {
  const chainOf = (pids: ReadonlyArray<number>): Ancestry => ({
    pids: new Set(pids),
    holdsTerminal: () => false
  })

  it("is read once while nothing matches, and read again to confirm a match", () => {
    const reads: Array<Ancestry> = [chainOf([10, 20]), chainOf([10])]
    let count = 0
    const check = makeClientHostCheck(() => reads[Math.min(count++, reads.length - 1)]!)
    expect(check(30, null)).toBe(false)
    expect(check(31, null)).toBe(false)
    expect(count).toBe(1)
    // 20 was an ancestor when first read, but is not any more (it exited; its pid may be reused).
    expect(check(20, null)).toBe(false)
    expect(count).toBe(2)
    expect(check(10, null)).toBe(true)
    expect(count).toBe(3)
  })

  it("with a costly reading, confirms a match by one at most confirmEveryMs old", () => {
    let clock = 0
    let count = 0
    const check = makeClientHostCheck(
      () => {
        count++
        return chainOf(count === 1 ? [10, 20] : [10])
      },
      5_000,
      () => clock
    )
    expect(check(20, null)).toBe(true)
    expect(count).toBe(1)
    clock = 4_999
    expect(check(20, null)).toBe(true)
    expect(count).toBe(1)
    clock = 5_000
    expect(check(20, null)).toBe(false)
    expect(count).toBe(2)
    expect(check(10, null)).toBe(true)
    expect(count).toBe(2)
  })

  it("says false when the chain cannot be read", () => {
    const check = makeClientHostCheck(() => null)
    expect(check(process.pid, "/dev/tty")).toBe(false)
  })
})
