/**
 * ProcReads — the small /proc reads a listing makes per pane (Foreground.readProcText, viaOf,
 * Inventory.localShellUser) give what a whole-file read gives, and `via` for a pane whose own
 * shell shows the prompt is [] without walking /proc.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { readProcText, viaOf } from "../../src/layers/backends/tmux/Foreground.js"
import { localShellUser } from "../../src/layers/backends/tmux/Inventory.js"

const linux = process.platform === "linux"
const dir = mkdtempSync(join(tmpdir(), "tp-procreads-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.runIf(linux)("readProcText", () => {
  it("reads a /proc file as a whole-file read does", () => {
    const text = readProcText("/proc/self/status")
    expect(text).not.toBeNull()
    expect(text).toMatch(/^Name:/)
    expect(text).toContain(`\nPid:\t${process.pid}\n`)
    expect(text!.endsWith("\n")).toBe(true)
  })

  it("reads a file longer than its buffer whole, and an exactly buffer-sized one", () => {
    for (const size of [4095, 4096, 4097, 20_000]) {
      const path = join(dir, `f${size}`)
      const content = Array.from({ length: size }, (_, i) => String.fromCharCode(33 + (i % 90))).join("")
      writeFileSync(path, content, "latin1")
      expect(readProcText(path)).toBe(readFileSync(path, "latin1"))
    }
  })

  it("is null for a file that cannot be read", () => {
    expect(readProcText("/proc/0/stat")).toBeNull()
    expect(readProcText(join(dir, "missing"))).toBeNull()
  })
})

describe.runIf(linux)("viaOf and localShellUser", () => {
  it("via is [] for the pane's own shell, the chain for a shell under it, null for a pane not visible", async () => {
    const child = spawn("sh", ["-c", "sleep 30"], { stdio: "ignore" })
    try {
      const pane = process.pid
      expect(viaOf(pane, pane, null, pane)).toEqual([])
      // A pid that is no descendant of the root: its chain cannot be drawn.
      expect(viaOf(child.pid!, pane, null, pane)).toBeNull()
      // The child under this process: its name is the whole chain.
      const deadline = Date.now() + 5_000
      let via = viaOf(pane, child.pid!, null, pane)
      while (!["sh", "sleep"].includes(via?.[0] ?? "") && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        via = viaOf(pane, child.pid!, null, pane)
      }
      expect(via).toHaveLength(1)
      expect(["sh", "sleep"]).toContain(via![0])
      expect(viaOf(pane, pane, null, 2 ** 22 + 7)).toBeNull()
      expect(viaOf(null, pane, null, pane)).toBeNull()
    } finally {
      child.kill("SIGKILL")
    }
  })

  it("names this process's user for its own pid, none for another user's or a gone pid", () => {
    expect(localShellUser(process.pid)).toBe(userInfo().username || null)
    expect(localShellUser(2 ** 22 + 7)).toBeNull()
    expect(localShellUser(null)).toBeNull()
    if (process.getuid?.() !== 0) expect(localShellUser(1)).toBeNull()
  })
})
