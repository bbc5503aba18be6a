/**
 * After the prompt's B mark, pure: cursor moves that print nothing leave the command line empty
 * only when the cursor ends exactly at the prompt's end (fish's `ESC[K CR ESC[<n>C`); every
 * printable character, line feed, tab, vertical or absolute move, or a prompt line whose start was
 * not seen, reads as typed input.
 */
import { describe, expect, it } from "vitest"
import { PaneStream } from "../../src/domain/tmux/PaneStream.js"
import { paneReadiness } from "../../src/domain/tmux/TmuxReadiness.js"
import { markMaker, TOK } from "../support/tmux/Marks.js"
import { idleFlags } from "../support/tmux/PaneFixtures.js"

const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"))
const flags = idleFlags([TOK])

/** A stream at a prompt `prompt` drawn from a line start, then `after` written after B. */
const readinessAfter = (prompt: string, written: string) => {
  const mark = markMaker()
  const s = new PaneStream([TOK])
  s.feed(enc(`\r\n${mark("A")}${prompt}${mark("B")}${written}`))
  return paneReadiness(flags, s.facts, false)
}

describe("the cursor after the prompt", () => {
  it.each([
    ["fish's redraw", "user> ", "\x1b[K\r\x1b[6C"],
    ["a coloured prompt", "\x1b[32muser\x1b[0m> ", "\x1b[K\r\x1b[6C"],
    ["wide characters", "日本> ", "\r\x1b[6C"],
    ["back, then forward", "user> ", "\x1b[3D\x1b[3C"],
    ["to the column", "user> ", "\r\x1b[7G"],
    ["a mode set", "user> ", "\x1b[?2004h"]
  ])("back exactly at the prompt's end (%s): still an empty command line", (_, prompt, written) => {
    expect(readinessAfter(prompt, written)).toBe("ready")
  })

  it.each([
    ["one cell short", "\x1b[K\r\x1b[5C"],
    ["a carriage return", "\r"],
    ["a backspace", "\b"],
    ["a new line", "\r\n"],
    ["a tab", "\t"],
    ["up and down", "\x1b[A\x1b[B"],
    ["an absolute position", "\x1b[1;7H"],
    ["a character, then erased", "x\b\x1b[K"],
    ["a character, then the cursor put back", "x\r\x1b[6C\x1b[K"]
  ])(
    "anywhere else, moved in a way not followed, or after any printable character (%s): typed input",
    (_, written) => {
      expect(readinessAfter("user> ", written)).toBe("input_pending")
    }
  )

  it("a prompt whose line start was not seen cannot be returned to", () => {
    const mark = markMaker()
    const s = new PaneStream([TOK])
    s.feed(enc(`${mark("A")}user> ${mark("B")}\x1b[K\r\x1b[6C`))
    expect(paneReadiness(flags, s.facts, false)).toBe("input_pending")
    // Without a move after B, as before: nothing was typed.
    const still = new PaneStream([TOK])
    const m = markMaker()
    still.feed(enc(`${m("A")}user> ${m("B")}`))
    expect(paneReadiness(flags, still.facts, false)).toBe("ready")
  })
})
