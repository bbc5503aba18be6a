/**
 * The one VT parser, pure: tmux's own rules where they differ from other terminals (a DCS
 * passthrough with doubled ESCs, `ESC k`), CAN/SUB, split at every character, the string bound and
 * tmux's 5-second string timer; then property tests over generated streams against a reference
 * terminal, @xterm/headless: the OSC 133 marks found exactly where it finds them, the rendered text
 * exactly its screen text (tmux mode), and the model-facing text (Hygiene, C1 mode) exactly what its
 * screen shows.
 */
import xterm from "@xterm/headless"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { sanitizeTerminalText } from "../../src/domain/Hygiene.js"
import { renderText } from "../../src/domain/tmux/TextRender.js"
import { MAX_STRING_LENGTH, STRING_TIMEOUT_MS, VtParser, type VtSink } from "../../src/domain/VtParser.js"

/** Everything the parser reported, as short strings in order. */
const trace = (chunks: ReadonlyArray<string>, c1 = false, times?: ReadonlyArray<number>) => {
  const seen: Array<string> = []
  const sink: VtSink = {
    print: (t) => seen.push(`p:${t}`),
    execute: (c) => seen.push(`x:${c}`),
    csi: (params, final) => seen.push(`csi:${params}${String.fromCharCode(final)}`),
    osc: (ident, payload) => {
      seen.push(`osc:${ident};${payload}`)
      return false
    },
    stringStart: (kind) => seen.push(`start:${kind}`),
    abandoned: (kind, reason) => seen.push(`abandoned:${kind}:${reason}`)
  }
  const parser = new VtParser(c1)
  chunks.forEach((chunk, i) => {
    parser.write(chunk, sink, times?.[i])
  })
  // Adjacent prints are one run however the text was chunked.
  const merged: Array<string> = []
  for (const s of seen) {
    const last = merged[merged.length - 1]
    if (s.startsWith("p:") && last?.startsWith("p:")) merged[merged.length - 1] = last + s.slice(2)
    else merged.push(s)
  }
  return { seen: merged, parser }
}
const marks = (chunks: ReadonlyArray<string>) =>
  trace(chunks)
    .seen.filter((s) => s.startsWith("osc:133;"))
    .map((s) => s.slice(8))

describe("VtParser: tmux's rules", () => {
  it("keeps an OSC 133 inside a tmux passthrough DCS (inner ESCs doubled) out of the marks, and parses what follows", () => {
    const imgcat = "\x1bPtmux;\x1b\x1b]1337;File=inline=1:QUJD\x07\x1b\x1b]133;B;tp=x\x07\x1b\\"
    const { seen, parser } = trace([`${imgcat}after\x1b]133;A\x07`])
    expect(seen).toEqual(["start:DCS", "p:after", "start:OSC", "osc:133;A"])
    expect(parser.inGround).toBe(true)
  })

  it("ends a DCS only at ESC \\: CAN, SUB, BEL and ESC+other are data, as tmux has it", () => {
    expect(marks(["\x1bPq\x18\x1a\x07\x1b]133;A\x07\x1b\\\x1b]133;B\x07"])).toEqual(["B"])
  })

  it("reads tmux's ESC k title string as a string, not as text", () => {
    expect(trace(["\x1bkwindow \x1b]133;A\x07name\x1b\\x"]).seen).toEqual([
      "start:title",
      "start:OSC",
      "osc:133;A",
      "p:namex"
    ])
  })

  it("dispatches an OSC at BEL or ESC, drops one cut off by CAN or SUB, and ignores C0 inside it", () => {
    expect(marks(["\x1b]133;A\x07", "\x1b]133;\nB\x1b\\", "\x1b]133;C\x18", "\x1b]133;D\x1a"])).toEqual([
      "A",
      "B"
    ])
  })

  it("finds a mark split at every character, and text split at every character is the same text", () => {
    const stream =
      "out\x1b[1;31mred\x1b[0m\x1b]133;D;0;tp=ab\x07\x1bP1$r\x1b]133;X\x07\x1b\\\x1b]133;A\x1b\\$ "
    const whole = trace([stream]).seen
    for (let cut = 0; cut <= stream.length; cut++) {
      expect(trace([stream.slice(0, cut), stream.slice(cut)]).seen).toEqual(whole)
    }
  })

  it("abandons a string tmux would have timed out (5 s) before more bytes, and one past the bound", () => {
    const timed = trace(["\x1bPq data", "more\x1b]133;A\x07"], false, [0, STRING_TIMEOUT_MS + 1])
    expect(timed.seen).toEqual(["start:DCS", "abandoned:DCS:timed_out", "p:more", "start:OSC", "osc:133;A"])
    const soon = trace(["\x1bPq data", "more\x1b]133;A\x07"], false, [0, STRING_TIMEOUT_MS - 1])
    expect(soon.seen).toEqual(["start:DCS"])
    const long = trace([`\x1b_${"x".repeat(MAX_STRING_LENGTH + 1)}`])
    expect(long.seen).toEqual(["start:APC", "abandoned:APC:too_long", "p:x"])
  })

  it("reads C1 code points as controls only when asked (text from an emulator), never for a tmux pane", () => {
    expect(trace(["a\x9d133;A\x9cb"]).seen).toEqual(["p:a133;Ab"])
    expect(trace(["a\x9d133;A\x9cb"], true).seen).toEqual(["p:a", "start:OSC", "osc:133;A", "p:b"])
  })
})

// The reference: @xterm/headless, a real terminal emulator in Node.

const { Terminal } = xterm
type XTerm = InstanceType<typeof Terminal>

const write = (term: XTerm, data: string) => new Promise<void>((resolve) => term.write(data, resolve))

/** What the reference terminal shows of `stream` and the OSC 133 payloads it dispatched. */
const reference = async (stream: string) => {
  const term = new Terminal({
    cols: 500,
    rows: 100,
    scrollback: 100,
    allowProposedApi: true,
    convertEol: true
  })
  const found: Array<string> = []
  term.parser.registerOscHandler(133, (payload) => {
    found.push(payload)
    return true
  })
  await write(term, stream)
  const buffer = term.buffer.active
  const lines: Array<string> = []
  for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? "")
  term.dispose()
  return { marks: found, lines: trimTrailingEmpty(lines) }
}

const trimTrailingEmpty = (lines: ReadonlyArray<string>) => {
  const out = lines.map((l) => l.trimEnd())
  while (out.length > 0 && out[out.length - 1] === "") out.pop()
  return out
}

const word = fc.stringMatching(/^[a-zA-Z0-9 .,é$#%-]{1,6}$/)
const payload = fc.stringMatching(/^[a-z0-9=;:.]{0,8}$/)
const mark = fc
  .tuple(fc.constantFrom("A", "B", "C", "D", "D;0", "D;7", "A;k=v"), fc.constantFrom("\x07", "\x1b\\"))
  .map(([m, end]) => `\x1b]133;${m}${end}`)
const otherOsc = fc
  .tuple(
    fc.constantFrom("0;", "2;", "7;file://h/", "8;;", "1337;"),
    payload,
    fc.constantFrom("\x07", "\x1b\\")
  )
  .map(([head, body, end]) => `\x1b]${head}${body}${end}`)
/** String data neither terminal ends early: no ESC, CAN, SUB (their rules differ inside DCS). */
const stringData = fc.stringMatching(/^[a-z0-9;=\]\x07 ]{0,10}$/)
const strings = fc.oneof(
  fc
    .tuple(fc.constantFrom("", "1", "0;1", "1$"), fc.constantFrom("q", "r", "p"), stringData)
    .map(([params, final, data]) => `\x1bP${params}${final}${data}\x1b\\`),
  fc.tuple(fc.constantFrom("_", "^", "X"), stringData).map(([intro, data]) => `\x1b${intro}${data}\x1b\\`)
)
const csi = fc.oneof(
  fc.tuple(fc.constantFrom("", "1", "0", "2"), fc.constantFrom("K")).map(([p, f]) => `\x1b[${p}${f}`),
  fc
    .tuple(fc.integer({ min: 0, max: 9 }), fc.constantFrom("C", "D", "G"))
    .map(([n, f]) => `\x1b[${n || ""}${f}`),
  fc.constantFrom("\x1b[1;31m", "\x1b[0m", "\x1b[m", "\x1b[?2004h", "\x1b[?2004l", "\x1b[38;5;1m", "\x1b[1?m")
)
const controls = fc.constantFrom("\r", "\n", "\r\n", "\b", "\t", "\x07", "\x18", "\x1a", "\x1b\x1b7", "\x1b7")
/** An escape sequence cut off by CAN or SUB, or by another ESC: both terminals abandon it. */
const aborted = fc
  .tuple(fc.constantFrom("\x1b]133;A", "\x1b[1;3", "\x1b(", "\x1b]2;title"), fc.constantFrom("\x18", "\x1a"))
  .map(([head, cut]) => head + cut)
const piece = fc.oneof(
  { arbitrary: word, weight: 4 },
  { arbitrary: mark, weight: 3 },
  { arbitrary: otherOsc, weight: 1 },
  { arbitrary: strings, weight: 2 },
  { arbitrary: csi, weight: 2 },
  { arbitrary: controls, weight: 2 },
  { arbitrary: aborted, weight: 1 }
)
const stream = fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join(""))

describe("VtParser against a reference terminal (@xterm/headless)", () => {
  it("finds the marks the reference dispatches, and renders its screen text, split at every character", async () => {
    await fc.assert(
      fc.asyncProperty(stream, async (s) => {
        const ref = await reference(s)
        for (let cut = 0; cut <= s.length; cut++) {
          const chunks = [s.slice(0, cut), s.slice(cut)]
          expect(marks(chunks)).toEqual(ref.marks)
          expect(trimTrailingEmpty(renderText(chunks, { maxLines: 1000, maxChars: 100_000 }).lines)).toEqual(
            ref.lines
          )
        }
      }),
      { numRuns: 300 }
    )
  })

  it("gives the model the text the reference shows (Hygiene, C1 forms too), with nothing hidden or added", async () => {
    // No cursor movement here: the model-facing text keeps characters, it does not render rows.
    const flat = fc.oneof(
      { arbitrary: word, weight: 4 },
      { arbitrary: mark, weight: 2 },
      { arbitrary: otherOsc, weight: 2 },
      { arbitrary: strings, weight: 2 },
      { arbitrary: fc.constantFrom("\x1b[1;31m", "\x1b[0m", "\x1b[?2004h", "\x9b1m", "\x1b7"), weight: 2 },
      {
        arbitrary: fc.constantFrom("\n", "\x07", "\x18", "\x1b\x1b7", "\x9d0;t\x9c", "\x90q\x9c"),
        weight: 2
      },
      { arbitrary: aborted, weight: 1 }
    )
    await fc.assert(
      fc.asyncProperty(fc.array(flat, { maxLength: 30 }), async (pieces) => {
        const s = pieces.join("")
        const ref = await reference(s)
        const shown = sanitizeTerminalText(s).text.split("\n")
        expect(trimTrailingEmpty(shown)).toEqual(ref.lines)
      }),
      { numRuns: 300 }
    )
  })
})
