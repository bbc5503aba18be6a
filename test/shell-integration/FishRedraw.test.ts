/**
 * What fish does after its prompt, checked against the real fish installed here (in a private tmux
 * server, raw pane bytes from `pipe-pane`): fish ends every draw of a non-empty prompt by re-placing
 * the cursor with a carriage return and a forward move (`ESC[K CR ESC[<n>C`), after the last byte its
 * prompt function printed (fish 3.6.0 src/screen.cpp, screen_t::update: an unconditional
 * `move(0, 0)` "in case we're wrong about the width anywhere", then a move to the cursor). So a B
 * mark at the end of the prompt is followed, at an idle prompt, by a CR; PaneStream follows the
 * cursor (PromptColumn.ts) and reads that prompt as empty because the cursor comes back exactly to
 * the prompt's end, while a single typed character still reads as typed. If a fish release changes
 * the redraw, the first test says how.
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

  it("PaneStream follows that redraw: the idle prompt is empty, one typed character is not", async () => {
    const segment = await pane.segment(
      () => pane.type(""),
      (t) => marksIn(t).some((m) => m.mark === "B"),
      "the prompt after Enter"
    )
    const stream = new PaneStream([TOKEN])
    // From the Enter's line end on, as the pane's stream has it.
    stream.feed(new TextEncoder().encode(`\r\n${segment}`))
    expect(stream.facts.lastMark).toBe("B")
    expect(stream.facts.echoedSinceB).toBe(false)
    const typed = await pane.segment(
      () => pane.type("x", false),
      (t) => withoutEscapes(t).includes("x"),
      "the typed x"
    )
    stream.feed(new TextEncoder().encode(typed))
    expect(stream.facts.echoedSinceB).toBe(true)
    await pane.tmux("send-keys", "-t", "%0", "C-u")
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

  it("so fish has a snippet", () => {
    expect(chooseSnippet("fish")._tag).toBe("Snippet")
  })
})
