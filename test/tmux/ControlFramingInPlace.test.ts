/**
 * `%output` lines are unescaped in place, in the chunk the framer was fed: many escaped lines in
 * one chunk, split anywhere across chunks, each Output keeps exactly its own line's bytes (what
 * `unescapeOutput` makes of it), also after later chunks were fed.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ControlFramer, unescapeOutput } from "../../src/domain/tmux/ControlFraming.js"

/** tmux's escaping: bytes below 0x20 and the backslash as `\ooo`. */
const tmuxEscape = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) =>
    b < 0x20 || b === 0x5c ? `\\${b.toString(8).padStart(3, "0")}` : String.fromCharCode(b)
  ).join("")

const payload = fc
  .uint8Array({ minLength: 0, maxLength: 60 })
  .map((bytes) => bytes.map((b) => (b === 0x0a ? 0x0d : b)))

describe("%output unescaped in place", () => {
  it("every line's bytes are its own, whatever the chunking", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 99 }), payload), { minLength: 1, maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 5000 }), { maxLength: 8 }),
        (lines, cuts) => {
          const wire = Buffer.from(
            lines.map(([pane, bytes]) => `%output %${pane} ${tmuxEscape(bytes)}\n`).join(""),
            "latin1"
          )
          const points = [...new Set(cuts.map((c) => c % (wire.length + 1)))].sort((a, b) => a - b)
          const framer = new ControlFramer()
          const events = []
          let from = 0
          for (const at of [...points, wire.length]) {
            // A fresh chunk each time, as a pipe read gives: the framer may rewrite it.
            events.push(...framer.feed(Buffer.from(wire.subarray(from, at))))
            from = at
          }
          expect(events.map((e) => (e._tag === "Output" ? [e.pane, Buffer.from(e.bytes)] : e))).toEqual(
            lines.map(([pane, bytes]) => [pane, Buffer.from(bytes)])
          )
        }
      ),
      { numRuns: 300 }
    )
  })

  it("agrees with unescapeOutput, which leaves its input as it was", () => {
    const raw = Buffer.from("a\\033[1mb\\134c\\015\\012", "latin1")
    const copy = Buffer.from(raw)
    const framed = new ControlFramer().feed(
      Buffer.concat([Buffer.from("%output %7 "), raw, Buffer.from("\n")])
    )
    expect(framed).toEqual([{ _tag: "Output", pane: 7, bytes: unescapeOutput(raw) }])
    expect(raw).toEqual(copy)
  })
})
