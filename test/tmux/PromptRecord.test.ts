/**
 * Prompts drawn before TermPilot watched, pure: the snippet's record is read exactly or not at
 * all; the screen proves a bare prompt only when the cursor's row is that prompt and nothing else
 * (a right prompt aside), text after it is `typed`, anything else proves nothing; a stream adopts
 * such a prompt only while it has seen nothing of its own, and the marks after it keep moving
 * forward (an older one is still a replay).
 */
import { describe, expect, it } from "vitest"
import { PaneStream } from "../../src/domain/tmux/PaneStream.js"
import {
  cellWidth,
  lastVisibleLine,
  type PromptRecord,
  parsePromptRecord,
  promptShown
} from "../../src/domain/tmux/PromptRecord.js"
import { paneReadiness } from "../../src/domain/tmux/TmuxReadiness.js"
import { TOK } from "../support/tmux/Marks.js"
import { idleFlags } from "../support/tmux/PaneFixtures.js"

const record = (prompt: string, rprompt = "", last: PromptRecord["last"] = null): PromptRecord => ({
  token: TOK,
  seq: 7,
  prompt,
  rprompt,
  last
})
/** A `tp2` record of prompt 7 with the last command's fields (n, status, start, end, cwd, line). */
const tp2 = (...last: ReadonlyArray<string>) =>
  `tp2\0${TOK}\x007\x00tp$ \0\0${last.map((f) => `${f}\0`).join("")}`
const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"))
const announced = [`${TOK}:4242`]

describe("the prompt record", () => {
  it("is read only in its exact form", () => {
    expect(parsePromptRecord(`tp1\0${TOK}\x007\x00tp$ \0\0`)).toEqual(record("tp$ "))
    expect(parsePromptRecord(`tp1\0${TOK}\x007\x00tp$ \0[r]\0`)).toEqual(record("tp$ ", "[r]"))
    expect(parsePromptRecord(`tp2\0${TOK}\x007\x00tp$ \0\0`)).toBeNull()
    expect(parsePromptRecord(`tp3\0${TOK}\x007\x00tp$ \0\0`)).toBeNull()
    expect(parsePromptRecord(`tp1\0${TOK}\x00seven\0tp$ \0\0`)).toBeNull()
    expect(parsePromptRecord(`tp1\0not-hex\x007\x00tp$ \0\0`)).toBeNull()
    // Cut short while the shell was writing it.
    expect(parsePromptRecord(`tp1\0${TOK}\x007\x00tp`)).toBeNull()
  })

  it("reads the last command of a tp2 record exactly, or the record not at all", () => {
    expect(parsePromptRecord(tp2("", "", "", "", "", ""))).toEqual(record("tp$ "))
    const failed = tp2("5", "2", "1796449477.768150", "1796449478.5", "/tmp/a%20b", "make%20-C%20x%3B%C3%A9")
    expect(parsePromptRecord(failed)).toEqual(
      record("tp$ ", "", {
        seq: 5,
        exitCode: 2,
        startedAt: 1796449477768,
        finishedAt: 1796449478500,
        cwd: "/tmp/a b",
        command: "make -C x;\u00e9"
      })
    )
    // bash: no line; fish: no clock.
    expect(parsePromptRecord(tp2("6", "0", "", "", "", ""))?.last).toEqual({
      seq: 6,
      exitCode: 0,
      startedAt: null,
      finishedAt: null,
      cwd: null,
      command: null
    })
    // A command of this prompt or a later one, a status past 255, a bad time or encoding, fields
    // of a command that did not run, a field too many or too few: nothing.
    for (const bad of [
      tp2("7", "0", "", "", "", ""),
      tp2("9", "0", "", "", "", ""),
      tp2("5", "256", "", "", "", ""),
      tp2("5", "-1", "", "", "", ""),
      tp2("5", "0", "yesterday", "", "", ""),
      tp2("5", "0", "", "", "/a b", ""),
      tp2("5", "0", "", "", "", "ls;rm"),
      tp2("5", "0", "", "", "", "%zz"),
      tp2("", "0", "", "", "", ""),
      tp2("5", "0", "", "", "", "", ""),
      tp2("5", "0", "", "", ""),
      tp2("5", "0", "", "", "", "x".repeat(6 * 1024 + 1))
    ])
      expect(parsePromptRecord(bad), bad.slice(0, 80)).toBeNull()
  })

  it("shows the last line of the prompt, colours, titles and bash's markers dropped", () => {
    expect(
      lastVisibleLine("\u0001\x1b]0;title\x07\u0002user@host:~\n\u0001\x1b[1;32m\u0002$\u0001\x1b[0m\u0002 ")
    ).toBe("$ ")
    expect(lastVisibleLine("a\r\nb> ")).toBe("b> ")
  })

  it("proves nothing for a prompt that moves the cursor or overwrites itself", () => {
    expect(lastVisibleLine("\x1b[2Ctp$ ")).toBeNull()
    expect(lastVisibleLine("xx\rtp$ ")).toBeNull()
    expect(lastVisibleLine("tp$ \x1bPunfinished")).toBeNull()
  })

  it("counts wide characters as two cells and combining marks as none", () => {
    expect(cellWidth("日本$ ")).toBe(6)
    expect(cellWidth("e\u0301$ ")).toBe(3)
    expect(cellWidth("❯ ")).toBe(2)
  })
})

describe("the screen against the record", () => {
  it("a bare prompt: the row is the prompt, the cursor right after it, nothing below", () => {
    expect(promptShown(record("tp$ "), { cursorX: 4, rows: ["tp$", "", ""] })).toBe("bare")
    expect(promptShown(record("日本$ "), { cursorX: 6, rows: ["日本$"] })).toBe("bare")
    expect(promptShown(record("tz% ", "[r]"), { cursorX: 4, rows: ["tz%        [r]", ""] })).toBe("bare")
  })

  it("text after the prompt, wherever the cursor is, is typed", () => {
    expect(promptShown(record("tp$ "), { cursorX: 13, rows: ["tp$ echo half"] })).toBe("typed")
    expect(promptShown(record("tp$ "), { cursorX: 4, rows: ["tp$ echo home"] })).toBe("typed")
    expect(promptShown(record("tz% ", "[r]"), { cursorX: 8, rows: ["tz% ls -l  [r]"] })).toBe("typed")
  })

  it("anything else proves nothing", () => {
    // The cursor is not where the prompt ends (typed spaces), or a row below shows something.
    expect(promptShown(record("tp$ "), { cursorX: 6, rows: ["tp$"] })).toBeNull()
    expect(promptShown(record("tp$ "), { cursorX: 4, rows: ["tp$", "(reverse-i-search)"] })).toBeNull()
    // Another prompt (PS2), another program's line, a prompt that shows nothing.
    expect(promptShown(record("tp$ "), { cursorX: 2, rows: ["> "] })).toBeNull()
    expect(promptShown(record("tp$ "), { cursorX: 0, rows: [""] })).toBeNull()
    expect(promptShown(record(""), { cursorX: 0, rows: [""] })).toBeNull()
    expect(promptShown(record("\x1b[31m\x1b[0m"), { cursorX: 0, rows: [""] })).toBeNull()
  })
})

describe("a stream adopting a prompt drawn before it watched", () => {
  const flags = idleFlags(announced)

  it("is ready at it, takes the marks that follow it, and still refuses an older one", () => {
    const s = new PaneStream(announced)
    s.record = true
    s.adopt(TOK, 7, false)
    expect(paneReadiness(flags, s.facts, false)).toBe("ready")
    expect(s.facts.shellPid).toBe(4242)
    s.feed(enc(`ls\r\n\x1b]133;C;tp=${TOK};n=7\x07out\r\n\x1b]133;D;0;tp=${TOK};n=7\x07`))
    expect(s.output(s.facts.promptId!)?.lines).toEqual(["out"])
    s.feed(enc(`\x1b]133;A;tp=${TOK};n=6\x07$ \x1b]133;B;tp=${TOK};n=6\x07`))
    expect(s.facts.doubt).toMatch(/replayed/)
  })

  it("with text typed after it is input_pending", () => {
    const s = new PaneStream(announced)
    s.adopt(TOK, 7, true)
    expect(paneReadiness(flags, s.facts, false)).toBe("input_pending")
  })

  it("changes nothing once the stream has seen a mark, a string is open, or the token is not a shell's own", () => {
    const marked = new PaneStream(announced)
    marked.feed(enc(`\x1b]133;D;tp=${TOK};n=3\x07`))
    marked.adopt(TOK, 7, false)
    expect(marked.facts.lastMark).toBe("D")
    const open = new PaneStream(announced)
    open.feed(enc("\x1bPtmux;"))
    open.adopt(TOK, 7, false)
    expect(open.facts.lastMark).toBeNull()
    const nested = new PaneStream([`${TOK}:4242:nested`])
    nested.adopt(TOK, 7, false)
    expect(nested.facts.lastMark).toBeNull()
  })
})

describe("the last command from before watching, and the command line of a C mark", () => {
  const last = { seq: 5, exitCode: 2, startedAt: null, finishedAt: null, cwd: "/p", command: "make" }

  it("is the first entry, finished, without output; marks after it log the next commands with their lines", () => {
    const s = new PaneStream(announced)
    s.earlier(TOK, last)
    s.adopt(TOK, 7, false)
    s.feed(enc(`ls\r\n\x1b]133;C;tp=${TOK};n=7;cmd=ls%20-l%3B\x07out\r\n\x1b]133;D;0;tp=${TOK};n=7\x07`))
    const [before, after] = s.history.entries
    expect(before).toMatchObject({ seq: 5, exitCode: 2, status: "finished", command: "make", cwd: "/p" })
    expect(before!.unavailable).toMatch(/before TermPilot watched/)
    expect(s.history.place(before!)).toMatch(/before TermPilot watched/)
    expect(after).toMatchObject({ seq: 7, exitCode: 0, command: "ls -l;" })
    // bash's line comes in its D (from its history, once the command ended); a D does not replace a C's line.
    s.feed(enc(`\x1b]133;A;tp=${TOK};n=8\x07\x1b]133;B;tp=${TOK};n=8\x07\x1b]133;C;tp=${TOK};n=8\x07`))
    expect(s.history.entries[2]).toMatchObject({ seq: 8, command: null, status: "running" })
    s.feed(enc(`\x1b]133;D;0;tp=${TOK};n=8;cmd=pwd\x07`))
    s.feed(enc(`\x1b]133;A;tp=${TOK};n=9\x07\x1b]133;B;tp=${TOK};n=9\x07\x1b]133;C;tp=${TOK};n=9;cmd=ls\x07`))
    s.feed(enc(`\x1b]133;D;0;tp=${TOK};n=9;cmd=other\x07`))
    expect(s.history.entries.slice(2).map((e) => e.command)).toEqual(["pwd", "ls"])
  })

  it("is nothing once the stream counted a mark, or for a token that is not a shell's own", () => {
    const marked = new PaneStream(announced)
    marked.feed(enc(`\x1b]133;D;tp=${TOK};n=3\x07`))
    marked.earlier(TOK, last)
    expect(marked.history.entries).toEqual([])
    const nested = new PaneStream([`${TOK}:4242:nested`])
    nested.earlier(TOK, last)
    expect(nested.history.entries).toEqual([])
    const other = new PaneStream(announced)
    other.earlier("fedcba9876543210", last)
    expect(other.history.entries).toEqual([])
  })

  it("a forged token's cmd= makes no entry; a malformed or empty cmd= leaves the line unknown", () => {
    const s = new PaneStream(announced)
    s.adopt(TOK, 7, false)
    s.feed(enc(`\x1b]133;C;tp=fedcba9876543210;n=7;cmd=rm%20-rf\x07`))
    // An unknown token holds the stream until the pane's tokens are read again: still not announced.
    s.setTokens(announced)
    expect(s.history.entries).toEqual([])
    s.feed(enc(`\x1b]133;C;tp=${TOK};n=7;cmd=a%zz\x07\x1b]133;D;0;tp=${TOK};n=7\x07`))
    s.feed(enc(`\x1b]133;A;tp=${TOK};n=8\x07\x1b]133;B;tp=${TOK};n=8\x07\x1b]133;C;tp=${TOK};n=8;cmd=\x07`))
    expect(s.history.entries.map((e) => e.command)).toEqual([null, null])
  })
})
