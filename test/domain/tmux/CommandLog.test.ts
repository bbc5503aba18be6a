import { describe, expect, it } from "vitest"
import { CommandLog, type LogEntry, type Spot } from "../../../src/domain/tmux/CommandLog.js"

const at = (line: number, col = 0) => ({ line, col })

describe("CommandLog", () => {
  it("a command runs from its C to its shell's D of that prompt, with the D's status", () => {
    const log = new CommandLog("t")
    log.started("sh1", 4, "7", at(10), "/home", 1_000)
    expect(log.all[0]).toMatchObject({
      status: "running",
      exitCode: null,
      end: null,
      cwd: "/home",
      promptId: "7"
    })
    log.marked("sh1", 4, true, 2, at(15), 2_000)
    expect(log.all[0]).toMatchObject({ status: "finished", exitCode: 2, end: at(15), finishedAt: 2_000 })
  })

  it("keeps times exactly, before and after the first entry's, and says null for a time not known", () => {
    const log = new CommandLog("t")
    const earlier = { seq: 3, exitCode: 1, cwd: null, command: "make" }
    log.earlier("sh1", { ...earlier, startedAt: 1_796_400_000_123, finishedAt: 1_796_400_004_000 })
    log.started("sh1", 4, null, at(1), null, 1_796_400_009_999)
    log.marked("sh1", 4, true, 0, at(2), 1_796_400_010_500)
    log.started("sh1", 5, null, at(3), null, 1_796_400_011_000)
    log.marked("sh1", 6, false, null, at(4), 1_796_400_012_000)
    expect(log.all.map((e) => [e.startedAt, e.finishedAt])).toEqual([
      [1_796_400_000_123, 1_796_400_004_000],
      [1_796_400_009_999, 1_796_400_010_500],
      [1_796_400_011_000, 1_796_400_012_000]
    ])
    const unknown = new CommandLog("u")
    unknown.earlier("sh1", { ...earlier, startedAt: null, finishedAt: null })
    expect(unknown.all[0]).toMatchObject({
      startedAt: null,
      finishedAt: null,
      status: "finished",
      exitCode: 1
    })
    const fish = new CommandLog("f")
    fish.earlier("sh1", { ...earlier, startedAt: null, finishedAt: null })
    fish.started("sh1", 4, null, at(1), null, 5_000)
    expect(fish.all[1]).toMatchObject({ startedAt: 5_000, finishedAt: null, status: "running" })
  })

  it("a D of an older prompt of the same shell, or another shell's D without a status, ends nothing", () => {
    const log = new CommandLog("t")
    log.started("sh1", 4, null, at(1), null, 0)
    log.marked("sh1", 3, true, 0, at(2), 0)
    log.marked("sh2", 4, true, null, at(2), 0)
    expect(log.all[0]!.status).toBe("running")
  })

  it("a later prompt of the shell ends its command without a status; a repeated C adds nothing", () => {
    const log = new CommandLog("t")
    log.started("sh1", 4, null, at(1), null, 0)
    log.started("sh1", 4, null, at(2), null, 0)
    log.marked("sh1", 5, false, null, at(3), 0)
    expect(log.all).toHaveLength(1)
    expect(log.all[0]).toMatchObject({ status: "finished", exitCode: null, end: at(3) })
  })

  it("what ran nested in a command ends with it, status unknown (ssh, or a shell started before the log)", () => {
    const log = new CommandLog("t")
    log.started("outer", 1, null, at(1), null, 0)
    log.started("inner", 1, null, at(2), null, 0)
    log.marked("outer", 1, true, 255, at(3), 0)
    expect(log.all.map((e) => [e.status, e.exitCode])).toEqual([
      ["finished", 255],
      ["unknown", null]
    ])
    // The carrier (ssh started before the log) marks nothing until its command ends.
    const early = new CommandLog("u")
    early.marked("inner", 1, true, null, at(0), 0)
    early.started("inner", 1, null, at(1), null, 0)
    expect(early.all[0]!.status).toBe("running")
    early.marked("carrier", 9, true, 0, at(2), 0)
    expect(early.all[0]!.status).toBe("unknown")
  })

  it("rows not known at its start or end: facts kept, output unavailable", () => {
    const log = new CommandLog("t")
    log.started("sh", 1, null, null, null, 0)
    log.marked("sh", 1, true, 0, at(5), 0)
    expect(log.all[0]).toMatchObject({ status: "finished", exitCode: 0 })
    expect(log.all[0]!.unavailable).toMatch(/did not yet know/)
  })

  it("a write before an ended command's end spoils that command and every later one reaching past it", () => {
    const log = new CommandLog("t")
    log.started("sh", 1, null, at(0), null, 0)
    log.marked("sh", 1, true, 0, at(5), 0)
    log.started("sh", 2, null, at(6), null, 0)
    log.marked("sh", 2, true, 0, at(9, 3), 0)
    expect(log.protectedUpTo).toEqual(at(9, 3))
    log.rewritten(at(9, 3))
    expect(log.all.map((e) => e.unavailable)).toEqual([null, null])
    log.rewritten(at(7))
    expect(log.all[0]!.unavailable).toBeNull()
    expect(log.all[1]!.unavailable).toMatch(/wrote over its output/)
    expect(log.protectedUpTo).toEqual(at(5))
  })

  it("a loss: what reaches the screen or still runs is lost, what is in the history waits for the next sync", () => {
    const held = new CommandLog("t")
    held.started("sh", 1, null, at(0), null, 0)
    held.marked("sh", 1, true, 0, at(40), 0)
    held.started("sh", 2, null, at(41), null, 0)
    held.marked("sh", 2, true, 0, at(60), 0)
    held.started("sh", 3, null, at(61), null, 0)
    held.lost("a wide character", 50)
    expect(held.all.map((e) => [e.unavailable === null, e.suspended === null])).toEqual([
      [true, false],
      [false, true],
      [false, true]
    ])
    held.resumed(true)
    expect(held.all[0]).toMatchObject({ unavailable: null, suspended: null })
    const dropped = new CommandLog("u")
    dropped.started("sh", 1, null, at(0), null, 0)
    dropped.marked("sh", 1, true, 0, at(40), 0)
    dropped.lost("a wide character", 50)
    dropped.resumed(false)
    expect(dropped.all[0]!.unavailable).toMatch(/could not be proved/)
  })

  it("keeps at most its capacity, dropping the oldest; ids stay unique", () => {
    const log = new CommandLog("t", 3)
    for (let n = 1; n <= 5; n++) log.started("sh", n, null, at(n), null, 0)
    expect(log.all.map((e) => e.seq)).toEqual([3, 4, 5])
    expect(new Set(log.all.map((e) => e.id)).size).toBe(3)
    expect(log.get(log.all[0]!.id)?.seq).toBe(3)
  })

  it("gives back each entry's facts exactly as logged (kept as numbers: times, rows, columns)", () => {
    const log = new CommandLog("t")
    const t0 = 1_764_900_000_123
    log.started("sh", 1, "p1", at(7, 3), "/w", t0)
    log.started("sh", 2, "p2", null, "/w", t0 + 50)
    log.marked("sh", 1, true, 0, at(9), t0 + 40)
    log.marked("sh", 2, true, 130, null, t0 + 1_000_000_007)
    expect(log.all.map((e) => ({ ...pick(e), id: e.id }))).toEqual([
      { ...facts(1, "p1", t0, t0 + 40, 0, at(7, 3), at(9)), unavailable: null, id: "t.1" },
      {
        ...facts(2, "p2", t0 + 50, t0 + 1_000_000_007, 130, null, null),
        unavailable: expect.stringMatching(/did not yet know/),
        id: "t.2"
      }
    ])
    expect(log.all.map((e) => e.cwd)).toEqual(["/w", "/w"])
  })

  it("finds an entry only by its exact id", () => {
    const log = new CommandLog("t")
    for (let n = 1; n <= 12; n++) log.started("sh", n, null, at(n), null, 0)
    expect(log.get("t.5")?.seq).toBe(5)
    for (const edited of [
      "t.05",
      "t.5.0",
      "u.5",
      "t5",
      "t.+5",
      "t. 5",
      " t.5",
      "t.5 ",
      "5",
      "t.",
      "t.0",
      "t.13"
    ])
      expect(log.get(edited), edited).toBeUndefined()
  })
})

const pick = (e: LogEntry) => ({
  seq: e.seq,
  promptId: e.promptId,
  startedAt: e.startedAt,
  finishedAt: e.finishedAt,
  exitCode: e.exitCode,
  start: e.start,
  end: e.end,
  status: e.status,
  unavailable: e.unavailable
})

const facts = (
  seq: number,
  promptId: string,
  startedAt: number,
  finishedAt: number,
  exitCode: number,
  start: Spot | null,
  end: Spot | null
) => ({ seq, promptId, startedAt, finishedAt, exitCode, start, end, status: "finished" })
