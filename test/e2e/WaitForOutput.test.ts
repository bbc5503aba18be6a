/**
 * End to end on the fake iTerm2 (real bash in PTYs): wait_for_output's contract
 * (test/support/WaitForOutputChecks.ts), with the fake's SendText ledger proving that no wait
 * sent anything.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"
import {
  expectCancelStopsQuickly,
  expectCommandEnded,
  expectMatchedAfterTwoSeconds,
  expectPathologicalPatternBounded,
  expectQuietAfterBurst,
  type WaitRig
} from "../support/WaitForOutputChecks.js"

let rig: FakeIterm2Rig
let dir: string
let auditPath: string
let waits: WaitRig

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tp-wait-"))
  auditPath = join(dir, "audit.jsonl")
  rig = await openFakeIterm2Rig({ auditPath })
  waits = {
    mcp: rig.mcp,
    nothingSent: async (action) => {
      const before = rig.world.ledger.size
      const result = await action()
      expect(rig.world.ledger.all().slice(before), "SendText during the wait").toEqual([])
      return result
    }
  }
})

afterAll(async () => {
  await rig?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe("wait_for_output on the fake iTerm2", () => {
  it("a pattern printed after 2 s: matched after about 2 s, with the line", async () => {
    const s = await rig.world.createWindow()
    await expectMatchedAfterTwoSeconds(waits, s.sessionId)
  })

  it("a burst, then silence: quiet", async () => {
    const s = await rig.world.createWindow()
    await expectQuietAfterBurst(waits, s.sessionId)
  })

  it("the command ends: command_ended with its exit code", async () => {
    const s = await rig.world.createWindow()
    await expectCommandEnded(waits, s.sessionId)
  })

  it("the client cancels: the wait stops within 0.5 s", async () => {
    const s = await rig.world.createWindow()
    await expectCancelStopsQuickly(waits, s.sessionId, auditPath)
  })

  it("(a+)+$ on a long aaaa…b line answers within its bound", async () => {
    const s = await rig.world.createWindow()
    await expectPathologicalPatternBounded(waits, s.sessionId)
  })
})
