/**
 * Why `termpilot shell-integration fish` refuses, checked against the real fish installed here (in a
 * private tmux server, raw pane bytes from `pipe-pane`): fish ends every draw of a non-empty prompt by
 * re-placing the cursor with a carriage return and a forward move (`ESC[K CR ESC[<n>C`), after the
 * last byte its prompt function printed. So a B mark at the end of the prompt is followed, at an idle
 * prompt, by a CR, which PaneStream rightly counts as typed input: the pane would never read ready.
 * (fish 3.6.0 src/screen.cpp, screen_t::update: an unconditional `move(0, 0)` "in case we're wrong
 * about the width anywhere", then a move to the cursor.) Only a prompt whose last line has no width
 * (the command line on a line of its own) is followed by nothing. If a fish release stops doing
 * this, the first test fails and fish support can be reconsidered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PaneStream } from "../../src/domain/tmux/PaneStream.js"
import { chooseSnippet } from "../../src/shell-integration/ShellIntegration.js"
import { marksIn, withoutEscapes } from "./ShellStream.js"
import { TmuxShell } from "./TmuxShell.js"

const TOKEN = "0123456789abcdef0123456789abcdef"

/** A fish prompt function printing `text` (a printf format) between A and B marks of prompt `n` with TOKEN. */
const markedPrompt = (text: string) =>
  `function fish_prompt; printf '\\e]133;A;tp=${TOKEN};n=1\\a'; printf '${text}'; ` +
  `printf '\\e]133;B;tp=${TOKEN};n=1\\a'; end`

describe("fish (the installed release) redraws after its prompt", () => {
  let pane: TmuxShell

  beforeAll(async () => {
    pane = await TmuxShell.start(["fish", "--no-config"])
    await pane.segment(
      () => pane.type(markedPrompt("user> ")),
      (t) => marksIn(t).some((m) => m.mark === "B"),
      "the marked prompt"
    )
  })
  afterAll(async () => {
    await pane?.close()
  })

  it("an empty Enter: the prompt's B mark is followed by a carriage return at the idle prompt", async () => {
    const segment = await pane.segment(
      () => pane.type(""),
      (t) => marksIn(t).some((m) => m.mark === "B"),
      "the prompt after Enter"
    )
    const b = marksIn(segment).findLast((m) => m.mark === "B")!
    expect(segment.slice(b.end)).toMatch(/^\x1b\[K\r\x1b\[6C$/)
    expect(withoutEscapes(segment.slice(b.end))).toBe("\r")
  })

  it("PaneStream reads that idle prompt as typed input, so the marks could never say ready", async () => {
    const segment = await pane.segment(
      () => pane.type(""),
      (t) => marksIn(t).some((m) => m.mark === "B"),
      "the prompt after Enter"
    )
    const a = segment.indexOf("\x1b]133;A;")
    const stream = new PaneStream([TOKEN])
    stream.feed(new TextEncoder().encode(segment.slice(a)))
    expect(stream.facts.lastMark).toBe("B")
    expect(stream.facts.echoedSinceB).toBe(true)
  })

  it("only a prompt whose last line is empty (just the B mark) is followed by nothing", async () => {
    await pane.segment(
      () => pane.type(markedPrompt("user>\\n")),
      (t) => marksIn(t).some((m) => m.mark === "B"),
      "the two-line prompt"
    )
    const segment = await pane.segment(
      () => pane.type(""),
      (t) => marksIn(t).some((m) => m.mark === "B"),
      "the prompt after Enter"
    )
    const b = marksIn(segment).findLast((m) => m.mark === "B")!
    expect(withoutEscapes(segment.slice(0, b.end))).toMatch(/user>\r?\n$/)
    expect(segment.slice(b.end)).toBe("")
  })

  it("so the fish snippet is refused, naming that redraw", () => {
    const choice = chooseSnippet("fish")
    expect(choice._tag).toBe("Unsupported")
    if (choice._tag === "Unsupported") expect(choice.why).toMatch(/carriage return/)
  })
})
