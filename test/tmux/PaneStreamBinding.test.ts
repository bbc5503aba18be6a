/**
 * One pane's mark stream while a command TermPilot typed runs, pure: the command is bound to the
 * shell (mark key) and prompt it was typed at (`commandTyped`), so authentic marks of any other
 * shell — an earlier shell of the pane that went away with its prompt open, an earlier ssh
 * session's remote shell, a shell the stream never saw — neither end it, nor cut its output, nor
 * make an event; only its own shell's D (or a later prompt of it) ends it, whole and byte by byte.
 * A shell that carries it (its command was running when ours was typed: the ssh) reporting its end
 * is `ShellGone` with that exit status. Without a command of ours, nested shells are tracked as before.
 */
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { PaneStream } from "../../src/domain/tmux/PaneStream.js"
import type { PromptEvent } from "../../src/services/PromptTracker.js"
import { markMaker, TOK } from "../support/tmux/Marks.js"

const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"))
/** The pane's root shell (pid 10), an inner shell it started in tmux (pid 20), and its nested secret. */
const INNER = "fedcba9876543210"
const SECRET = "00112233445566778899aabbccddeeff"
const TOKENS = [`${TOK}:10`, `${SECRET}:10:nested`, `${INNER}:20`]

/** Marks of a shell over ssh with shell id `sh`, numbered as that shell numbers them. */
const remoteMaker = (sh: string) => {
  const token = createHash("sha256").update(`${SECRET}:${sh}`).digest("hex")
  return markMaker(`${token};sh=${sh}`)
}

/** Feeds `text` whole, or one byte at a time; the events of all the steps. */
const feed = (s: PaneStream, text: string, bytewise = false): Array<PromptEvent> => {
  const bytes = enc(text)
  if (!bytewise) return [...s.feed(bytes).events]
  const events: Array<PromptEvent> = []
  for (let i = 0; i < bytes.length; i++) events.push(...s.feed(bytes.subarray(i, i + 1)).events)
  return events
}

/** A stream whose root shell is at prompt 1 (id "1"), recording output. */
const rootAtPrompt = () => {
  const root = markMaker()
  const s = new PaneStream(TOKENS)
  s.record = true
  feed(s, `${root("A")}tp$ ${root("B")}`)
  return { s, root }
}

/**
 * Recordings of shells that will not come back, made while the stream watched: the inner shell
 * (own token) and an ssh session (nested), both gone with their prompt open (Ctrl-D, a dropped
 * connection): their last counted marks are an A and B, so a replay of them reads as a redraw.
 */
const earlierShells = (s: PaneStream, root: (body: string) => string) => {
  const inner = markMaker(INNER)
  const old = remoteMaker("1111111111111111")
  const innerText = `${inner("A")}inner$ ${inner("B")}echo in\r\n${inner("C")}in\r\n${inner("D;5")}${inner("A")}inner$ ${inner("B")}`
  const oldText = `${old("A")}remote$ ${old("B")}echo r\r\n${old("C")}r\r\n${old("D;0")}${old("A")}remote$ ${old("B")}`
  feed(s, `bash\r\n${root("C")}${innerText}\r\n${root("D;0")}${root("A")}tp$ ${root("B")}`)
  feed(s, `ssh h\r\n${root("C")}${oldText}\r\n${root("D;255")}${root("A")}tp$ ${root("B")}`)
  return `${innerText}\r\n${oldText}\r\n`
}

describe("PaneStream: a command of ours is bound to its shell and prompt", () => {
  for (const bytewise of [false, true]) {
    const how = bytewise ? "byte by byte" : "whole"
    it(`ignores replayed marks of shells gone with their prompt open, inside our command (${how})`, () => {
      const { s, root } = rootAtPrompt()
      const recording = earlierShells(s, root)
      const ours = s.facts.promptId!
      s.commandTyped()
      expect(feed(s, `cat rec\r\n${root("C")}`, bytewise)).toEqual([
        { _tag: "CommandStart", promptId: ours, command: null }
      ])
      expect(feed(s, recording, bytewise)).toEqual([])
      expect(s.facts).toMatchObject({ lastMark: "C", promptId: ours })
      expect(s.facts.doubt).toMatch(/another shell while a TermPilot command ran/)
      const end = feed(s, `MARKER\r\n${root("D;3")}${root("A")}tp$ ${root("B")}`, bytewise)
      expect(end).toEqual([
        { _tag: "CommandEnd", promptId: ours, exitCode: 3 },
        { _tag: "Prompt", promptId: String(Number(ours) + 1) }
      ])
      expect(s.output(ours)?.lines.at(-1)).toBe("MARKER")
      expect(s.output(ours)?.lines).toContain("in")
      // Our shell's next prompt is newer than the doubt: it clears.
      expect(s.facts.doubt).toBeNull()
    })
  }

  it("ignores shells the stream never saw — B, C, D;0 of an unseen shell end nothing — also behind ssh", () => {
    for (const where of ["local", "remote"] as const) {
      const { s, root } = rootAtPrompt()
      const here = remoteMaker("2222222222222222")
      let mark = root
      if (where === "remote") {
        feed(s, `ssh h\r\n${root("C")}${here("A")}remote$ ${here("B")}`)
        mark = here
      }
      const ours = s.facts.promptId!
      s.commandTyped()
      feed(s, `cat rec\r\n${mark("C")}`)
      const unseenInner = markMaker(INNER)
      const unseenRemote = remoteMaker("3333333333333333")
      for (const other of [unseenInner, unseenRemote]) {
        // Numbers a ledger that never saw the shell takes as forward.
        other("A")
        expect(
          feed(s, `${other("B")}x\r\n${other("C")}y\r\n${other("D;0")}${other("A")}$ ${other("B")}`)
        ).toEqual([])
      }
      expect(s.facts).toMatchObject({ lastMark: "C", promptId: ours })
      expect(feed(s, `end\r\n${mark("D;3")}`)).toEqual([{ _tag: "CommandEnd", promptId: ours, exitCode: 3 }])
      // The output is whole: nothing cut at their A, nothing cleared at their C.
      expect(s.output(ours)?.lines).toEqual(["x", "y", "$ x", "y", "$ end"])
    }
  })

  it("ends at a later prompt of our shell without a D: a new prompt, no exit status", () => {
    const { s, root } = rootAtPrompt()
    const ours = s.facts.promptId!
    s.commandTyped()
    // A syntax error: no C, a D without status, then the next prompt.
    expect(feed(s, `if\r\n${root("D")}${root("A")}tp$ ${root("B")}`)).toEqual([
      { _tag: "Prompt", promptId: String(Number(ours) + 1) }
    ])
    // Unbound again: the next prompt's marks count as usual.
    expect(feed(s, `x\r\n${root("C")}`)).toEqual([
      { _tag: "CommandStart", promptId: String(Number(ours) + 1), command: null }
    ])
  })

  it("reports the shell gone when the ssh that carries it ends, with ssh's status and the output so far", () => {
    const { s, root } = rootAtPrompt()
    const remote = remoteMaker("4444444444444444")
    feed(s, `ssh h\r\n${root("C")}${remote("A")}remote$ ${remote("B")}`)
    const ours = s.facts.promptId!
    s.commandTyped()
    feed(s, `sleep 30\r\n${remote("C")}partial\r\n`)
    expect(feed(s, `${root("D;255")}${root("A")}tp$ ${root("B")}`)).toEqual([
      { _tag: "ShellGone", promptId: ours, exitCode: 255 },
      { _tag: "Prompt", promptId: String(Number(ours) + 1) }
    ])
    expect(s.output(ours)?.lines).toEqual(["partial"])
    expect(s.facts).toMatchObject({ lastMark: "B", doubt: null, nestedUnder: null, shellPid: 10 })
  })

  it("a replay of the carrier's earlier marks is no end of the carrier", () => {
    const { s, root } = rootAtPrompt()
    const remote = remoteMaker("5555555555555555")
    const before = `${root("D;0")}${root("A")}tp$ ${root("B")}`
    feed(s, `true\r\n${root("C")}${before}`)
    feed(s, `ssh h\r\n${root("C")}${remote("A")}remote$ ${remote("B")}`)
    const ours = s.facts.promptId!
    s.commandTyped()
    expect(feed(s, `cat rec\r\n${remote("C")}${before}`)).toEqual([
      { _tag: "CommandStart", promptId: ours, command: null }
    ])
    expect(feed(s, `${remote("D;3")}`)).toEqual([{ _tag: "CommandEnd", promptId: ours, exitCode: 3 }])
  })

  it("a carrier the stream never saw (TermPilot started during ssh) is known from its prompt record", () => {
    for (const withRecord of [true, false]) {
      const s = new PaneStream(TOKENS)
      s.record = true
      const remote = remoteMaker("6666666666666666")
      feed(s, `${remote("A")}remote$ ${remote("B")}`)
      const ours = s.facts.promptId!
      const asked: Array<[number, string]> = []
      s.commandTyped((pid, token) => {
        asked.push([pid, token])
        return withRecord && token === TOK ? { seq: 7 } : null
      })
      expect(asked).toEqual([
        [10, TOK],
        [20, INNER]
      ])
      const root = (body: string) => `\x1b]133;${body};tp=${TOK};n=7\x07`
      const older = (body: string) => `\x1b]133;${body};tp=${TOK};n=6\x07`
      feed(s, `sleep 30\r\n${remote("C")}`)
      // The root shell's older prompt (a replay) never ends it.
      expect(feed(s, older("D;0"))).toEqual([])
      const gone = feed(s, root("D;255"))
      expect(gone).toEqual(withRecord ? [{ _tag: "ShellGone", promptId: ours, exitCode: 255 }] : [])
    }
  })

  it("without a command of ours, a nested shell the person opens is tracked as before", () => {
    const { s, root } = rootAtPrompt()
    const remote = remoteMaker("7777777777777777")
    const events = feed(s, `ssh h\r\n${root("C")}${remote("A")}remote$ ${remote("B")}`)
    expect(events.map((e) => e._tag)).toEqual(["CommandStart", "Prompt"])
    expect(s.facts).toMatchObject({ lastMark: "B", nestedUnder: 10, doubt: null })
  })

  it("a command typed at a standard integration's prompt (no token) binds nothing", () => {
    const s = new PaneStream([])
    const plain = markMaker(null)
    feed(s, `${plain("A")}$ ${plain("B")}`)
    s.commandTyped()
    expect(feed(s, `x\r\n${plain("C")}${plain("D;4")}`).map((e) => e._tag)).toEqual([
      "CommandStart",
      "CommandEnd"
    ])
  })
})

describe("PaneStream: a binding whose keys never reached the pane", () => {
  it("binds nothing: an inner shell's prompt the person opens next is tracked as without a command of ours", () => {
    const { s, root } = rootAtPrompt()
    s.commandTyped()
    // tmux refused the first typed line: nothing of ours is in the pane.
    s.commandNotTyped()
    const inner = markMaker(INNER)
    const events = feed(s, `bash\r\n${root("C")}${inner("A")}inner$ ${inner("B")}`)
    expect(events.map((e) => e._tag)).toEqual(["CommandStart", "Prompt"])
    expect(s.facts).toMatchObject({ lastMark: "B", doubt: null })
  })

  it("while bound, the same inner prompt makes no event and puts the pane in doubt", () => {
    const { s, root } = rootAtPrompt()
    s.commandTyped()
    const inner = markMaker(INNER)
    const events = feed(s, `bash\r\n${root("C")}${inner("A")}inner$ ${inner("B")}`)
    expect(events.map((e) => e._tag)).toEqual(["CommandStart"])
    expect(s.facts.doubt).not.toBeNull()
  })
})
