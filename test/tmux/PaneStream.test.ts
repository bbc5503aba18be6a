/**
 * One pane's mark stream, pure: marks and UTF-8 split across chunks, token authentication (a
 * held stream resumes once the pane's tokens are re-read; unannounced tokens are ignored), the
 * events each mark means, D without C, echo after B, rendered bounded output between C and D,
 * OSC 7, and the readiness verdict built on it.
 */
import { describe, expect, it } from "vitest"
import { PaneStream } from "../../src/domain/tmux/PaneStream.js"
import { renderText } from "../../src/domain/tmux/TextRender.js"
import { paneReadiness } from "../../src/domain/tmux/TmuxReadiness.js"
import { markMaker, TOK } from "../support/tmux/Marks.js"
import { idleFlags } from "../support/tmux/PaneFixtures.js"

const mark = markMaker()
const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"))
const tags = (events: ReadonlyArray<{ _tag: string }>) => events.map((e) => e._tag)

/** A prompt cycle as our snippet prints it around `output` with exit status `code`. */
const cycle = (output: string, code: number) =>
  `cmd\r\n\x1b[?2004l\r${mark("C")}${output}${mark(`D;${code}`)}\x1b]7;file://vm/tmp\x07\x1b[?2004h${mark("A")}$ ${mark("B")}`

describe("PaneStream", () => {
  it("turns a command cycle into events with the prompt id, and keeps exactly the output between C and D", () => {
    const s = new PaneStream([TOK])
    s.record = true
    const first = s.feed(enc(`${mark("A")}$ ${mark("B")}`))
    expect(first.events).toEqual([{ _tag: "Prompt", promptId: "1" }])
    const step = s.feed(enc(cycle("hi\r\nthere\r\n", 7)))
    expect(step.events).toEqual([
      { _tag: "CommandStart", promptId: "1", command: null },
      { _tag: "CommandEnd", promptId: "1", exitCode: 7 },
      { _tag: "Prompt", promptId: "2" }
    ])
    expect(s.output("1")).toEqual({ lines: ["hi", "there"], truncated: false })
    expect(s.cwd).toEqual({ path: "/tmp", host: "vm" })
  })

  it("gives the same events and output whatever the chunking (marks and UTF-8 split)", () => {
    const wire = Buffer.from(`${mark("A")}$ ${mark("B")}${cycle("漢字 é ✓\r\n", 0)}`, "utf8")
    const whole = new PaneStream([TOK])
    whole.record = true
    const expected = whole.feed(wire).events
    for (let cut = 1; cut < wire.length; cut += 3) {
      const s = new PaneStream([TOK])
      s.record = true
      const events = [...s.feed(wire.subarray(0, cut)).events, ...s.feed(wire.subarray(cut)).events]
      expect(events).toEqual(expected)
      expect(s.output("1")?.lines).toEqual(["漢字 é ✓"])
    }
  })

  it("ignores marks without the pane's token once one is announced: printed fake marks cannot end a command", () => {
    const s = new PaneStream([TOK])
    s.record = true
    s.feed(enc(`${mark("A")}$ ${mark("B")}cmd\r\n${mark("C")}`))
    const fake = s.feed(enc(`x\r\n${mark("D;0", null)}${mark("A", null)}${mark("B", null)}`))
    expect(fake.events).toEqual([])
    expect(s.facts.lastMark).toBe("C")
    expect(tags(s.feed(enc(`${mark("D;3")}`)).events)).toEqual(["CommandEnd"])
  })

  it("holds the stream at a mark with an unknown token until the tokens are re-read, then resumes in order", () => {
    const s = new PaneStream([])
    s.record = true
    const other = "fedcba9876543210"
    const held = s.feed(enc(`${mark("A", other)}$ ${mark("B", other)}`))
    expect(held).toEqual({ events: [], needTokens: true })
    expect(s.facts.held).toBe(true)
    // Bytes arriving while held wait behind it.
    expect(s.feed(enc("typed")).events).toEqual([])
    const resumed = s.setTokens([other])
    expect(resumed).toEqual({ events: [{ _tag: "Prompt", promptId: "1" }], needTokens: false })
    expect(s.facts).toMatchObject({ lastMark: "B", echoedSinceB: true, held: false })
  })

  it("rejects a token the pane never announced once, and ignores it from then on", () => {
    const s = new PaneStream([TOK])
    s.record = true
    s.feed(enc(`${mark("A")}$ ${mark("B")}`))
    const forged = "aaaaaaaaaaaaaaaa"
    expect(s.feed(enc(mark("C", forged))).needTokens).toBe(true)
    expect(s.setTokens([TOK])).toEqual({ events: [], needTokens: false })
    expect(s.feed(enc(mark("C", forged)))).toEqual({ events: [], needTokens: false })
    expect(s.facts.lastMark).toBe("B")
  })

  it("reads the tokens before trusting the first mark of a pane first seen in the stream", () => {
    const s = new PaneStream()
    s.record = true
    // A fake B printed by a running command right as TermPilot attaches must not count.
    expect(s.feed(enc(`x${mark("A", null)}${mark("B", null)}`))).toEqual({ events: [], needTokens: true })
    expect(s.setTokens([TOK])).toEqual({ events: [], needTokens: false })
    expect(s.facts.lastMark).toBeNull()
    // With no token announced, standard marks count once the (empty) list was read.
    const plain = new PaneStream()
    plain.record = true
    expect(plain.feed(enc(`${mark("A", null)}$ ${mark("B", null)}`)).needTokens).toBe(true)
    expect(plain.setTokens([]).events).toEqual([{ _tag: "Prompt", promptId: "1" }])
  })

  it("accepts standard marks (with other integrations' k=v params) from a pane that announced no token", () => {
    const s = new PaneStream([])
    s.record = true
    const events = s.feed(
      enc("\x1b]133;A;aid=7\x1b\\$ \x1b]133;B\x07ls\r\n\x1b]133;C;cl=m\x07out\r\n\x1b]133;D;2;aid=7\x07")
    ).events
    expect(events).toEqual([
      { _tag: "Prompt", promptId: "1" },
      { _tag: "CommandStart", promptId: "1", command: null },
      { _tag: "CommandEnd", promptId: "1", exitCode: 2 }
    ])
    expect(s.output("1")?.lines).toEqual(["out"])
  })

  it("renders output only for commands started while watched", () => {
    const s = new PaneStream([TOK])
    s.feed(enc(`${mark("A")}$ ${mark("B")}${cycle("unwatched\r\n", 0)}`))
    expect(s.output("1")).toBeUndefined()
    s.record = true
    s.feed(enc(cycle("watched\r\n", 0)))
    expect(s.output("2")?.lines).toEqual(["watched"])
  })

  it("emits nothing at a D without a C (empty line, lone ';'), then a Prompt with the next id", () => {
    const s = new PaneStream([TOK])
    s.record = true
    s.feed(enc(`${mark("A")}$ ${mark("B")}`))
    const step = s.feed(enc(`;\r\nbash: syntax error\r\n${mark("D")}${mark("A")}$ ${mark("B")}`))
    expect(step.events).toEqual([{ _tag: "Prompt", promptId: "2" }])
  })

  it("takes a prompt redrawn without a D (a resize) as the same prompt, so a command typed at it stays ours", () => {
    const s = new PaneStream([TOK])
    s.record = true
    s.feed(enc(`${mark("A")}$ ${mark("B")}`))
    // bash after SIGWINCH: CR, erase line, then A…B again; the command is typed and run after it.
    const redraw = s.feed(enc(`\r\x1b[K\r${mark("A")}$ ${mark("B")}`))
    expect(redraw.events).toEqual([{ _tag: "Prompt", promptId: "1" }])
    const ran = s.feed(enc(cycle("ok\r\n", 0)))
    expect(ran.events).toEqual([
      { _tag: "CommandStart", promptId: "1", command: null },
      { _tag: "CommandEnd", promptId: "1", exitCode: 0 },
      { _tag: "Prompt", promptId: "2" }
    ])
    // After a D (Ctrl-C at the prompt) the next A is a new prompt again.
    const cancelled = s.feed(enc(`^C\r\n${mark("D")}${mark("A")}$ ${mark("B")}`))
    expect(cancelled.events).toEqual([{ _tag: "Prompt", promptId: "3" }])
  })

  it("notes text echoed after B (typed input) but not CSI sequences; any string after B may hide typing", () => {
    const s = new PaneStream([TOK])
    s.record = true
    s.feed(enc(`${mark("A")}$ ${mark("B")}\x1b[?2004h\x1b[`))
    expect(s.facts.echoedSinceB).toBe(false)
    s.feed(enc("K"))
    expect(s.facts.echoedSinceB).toBe(false)
    s.feed(enc("l"))
    expect(s.facts.echoedSinceB).toBe(true)
    const titled = new PaneStream([TOK])
    titled.feed(enc(`${mark("A")}$ ${mark("B")}\x1b]2;title\x07`))
    expect(titled.facts.echoedSinceB).toBe(true)
  })

  it("renders CR, BS, TAB and erase-in-line as a terminal row shows them", () => {
    expect(
      renderText(["progress 10%\rprogress 99%\r\x1b[Kdone\r\nab\bc\tz\r\nkeep\x1b[1;31mred\x1b[0m\r\n"])
    ).toEqual({
      lines: ["done", "ac      z", "keepred"],
      truncated: false
    })
  })

  it("drops an unterminated blank line (zsh's PROMPT_SP) but keeps blank lines the output ended", () => {
    expect(
      renderText([`zsh-zsh\r\n\x1b[1m\x1b[7m%\x1b[27m\x1b[1m\x1b[0m${" ".repeat(79)}\r \r`]).lines
    ).toEqual(["zsh-zsh"])
    expect(renderText(["a\r\n\r\n"]).lines).toEqual(["a", ""])
  })

  it("keeps only a bounded tail of a huge output, and says so", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}\r\n`)
    expect(renderText(lines, { maxLines: 3, maxChars: 1000 })).toEqual({
      lines: ["line 97", "line 98", "line 99"],
      truncated: true
    })
    const wide = renderText(["x".repeat(50)], { maxLines: 10, maxChars: 5 })
    expect(wide.truncated).toBe(true)
    expect(wide.lines.join("").length).toBeLessThanOrEqual(10)
  })
})

describe("paneReadiness", () => {
  const flags = idleFlags([TOK])
  const facts = {
    lastMark: "B" as const,
    echoedSinceB: false,
    promptId: "1",
    held: false,
    doubt: null,
    openString: null,
    shellPid: null,
    nestedUnder: null
  }
  it("is ready only at a clean B with no command of ours in flight, and fails closed otherwise", () => {
    expect(paneReadiness(flags, facts, false)).toBe("ready")
    expect(paneReadiness(flags, facts, true)).toBe("busy")
    expect(paneReadiness(flags, { ...facts, echoedSinceB: true }, false)).toBe("input_pending")
    expect(paneReadiness(flags, { ...facts, held: true }, false)).toBe("unknown")
    expect(paneReadiness(flags, { ...facts, lastMark: "C" }, false)).toBe("busy")
    expect(paneReadiness(flags, { ...facts, lastMark: "D" }, false)).toBe("busy")
    expect(paneReadiness(flags, { ...facts, lastMark: "A" }, false)).toBe("unknown")
    expect(paneReadiness(flags, { ...facts, lastMark: null }, false)).toBe("unknown")
    expect(paneReadiness({ ...flags, tokens: [] }, { ...facts, lastMark: null }, false)).toBe(
      "shell_integration_required"
    )
    for (const f of [
      { dead: true },
      { mode: "copy-mode" },
      { alternateScreen: true },
      { inputOff: true },
      { synchronized: true }
    ]) {
      expect(paneReadiness({ ...flags, ...f }, facts, false)).toBe("interactive")
    }
  })
})
