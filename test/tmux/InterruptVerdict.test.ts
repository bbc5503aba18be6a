/**
 * The interrupt verdict from a real PaneStream fed the marks a shell prints: the command typed at a
 * prompt may get its ETX only between its C and D; before C (at B, or a redrawn prompt) it has not
 * started, after D or at a newer prompt it has ended; an untrusted or held stream cannot be
 * verified; tmux's flags refuse first (dead, mode, synchronize-panes, input off), and the alternate
 * screen does not. Also the stream's output so far and line counts of a running command.
 */
import { describe, expect, it } from "vitest"
import { interruptVerdict } from "../../src/domain/tmux/InterruptVerdict.js"
import { PaneStream } from "../../src/domain/tmux/PaneStream.js"
import { markMaker, TOK } from "../support/tmux/Marks.js"
import { idleFlags } from "../support/tmux/PaneFixtures.js"

const mark = markMaker()
const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"))
const idle = idleFlags([TOK])

const stream = () => {
  const s = new PaneStream([TOK])
  s.record = true
  return s
}
const verdict = (s: PaneStream, promptId = "1", flags = idle, trusted = true) =>
  interruptVerdict(flags, s.facts, promptId, trusted)

describe("interrupt verdict", () => {
  it("sends only between the prompt's C and D", () => {
    const s = stream()
    s.feed(enc(`${mark("A")}$ ${mark("B")}`))
    expect(verdict(s)).toEqual({ _tag: "Answer", check: "not_started" })
    s.feed(enc(`sleep 100\r\n`))
    expect(verdict(s)).toEqual({ _tag: "Answer", check: "not_started" })
    s.feed(enc(mark("C")))
    expect(verdict(s)).toEqual({ _tag: "Send" })
    // Another prompt's id is never running here.
    expect(verdict(s, "2")).toEqual({ _tag: "Answer", check: "ended" })
    s.feed(enc(`^C\r\n${mark("D;130")}`))
    expect(verdict(s)).toEqual({ _tag: "Answer", check: "ended" })
    s.feed(enc(`${mark("A")}$ ${mark("B")}`))
    expect(verdict(s)).toEqual({ _tag: "Answer", check: "ended" })
  })

  it("treats a prompt redrawn by a resize (A and B again, no D) as not started", () => {
    const s = stream()
    s.feed(enc(`${mark("A")}$ ${mark("B")}`))
    s.feed(enc(`\r\x1b[K${mark("A")}$ `))
    expect(s.facts).toMatchObject({ promptId: "1", lastMark: "A" })
    expect(verdict(s)).toEqual({ _tag: "Answer", check: "not_started" })
  })

  it("cannot verify an untrusted, held or markless stream", () => {
    const s = stream()
    expect(verdict(s)).toMatchObject({ _tag: "Refuse", code: "command_not_running" })
    s.feed(enc(`${mark("A")}$ ${mark("B")}x\r\n${mark("C")}`))
    expect(verdict(s, "1", idle, false)).toMatchObject({ _tag: "Refuse", code: "command_not_running" })
    // A mark with a token not announced yet holds the stream until the tokens are re-read.
    s.feed(enc("\x1b]133;D;0;tp=fedcba9876543210\x07"))
    expect(s.facts.held).toBe(true)
    expect(verdict(s)).toMatchObject({ _tag: "Refuse", code: "command_not_running" })
  })

  it("refuses on tmux's flags before looking at the stream; the alternate screen does not block", () => {
    const s = stream()
    s.feed(enc(`${mark("A")}$ ${mark("B")}vim\r\n${mark("C")}`))
    expect(verdict(s, "1", { ...idle, dead: true })).toMatchObject({ code: "session_not_found" })
    expect(verdict(s, "1", { ...idle, mode: "copy-mode" })).toMatchObject({ code: "session_not_ready" })
    expect(verdict(s, "1", { ...idle, synchronized: true })).toMatchObject({ code: "session_not_ready" })
    expect(verdict(s, "1", { ...idle, inputOff: true })).toMatchObject({ code: "session_not_ready" })
    expect(verdict(s, "1", { ...idle, alternateScreen: true })).toEqual({ _tag: "Send" })
  })

  it("gives a running command's output so far and its line count, and the count once it ended", () => {
    const s = stream()
    s.feed(enc(`${mark("A")}$ ${mark("B")}seq\r\n${mark("C")}1\r\n2\r\n3`))
    expect(s.outputSoFar("1")).toEqual({ lines: ["1", "2", "3"], truncated: false })
    expect(s.lineCount("1")).toBe(3)
    expect(s.output("1")).toBeUndefined()
    expect(s.outputSoFar("2")).toBeUndefined()
    s.feed(enc(`\r\n4\r\n${mark("D;0")}${mark("A")}$ ${mark("B")}`))
    expect(s.outputSoFar("1")).toBeUndefined()
    expect(s.output("1")?.lines).toEqual(["1", "2", "3", "4"])
    expect(s.lineCount("1")).toBe(4)
    expect(s.lineCount("2")).toBeNull()
  })
})
