/**
 * Following a fast command with since reads over real tmux, while it scrolls (and tmux trims the
 * history) during the reads: with less written between two reads than the history keeps, every
 * read keeps its place and continues exactly after the previous one (or, tail-bounded, gives only
 * newer lines), whatever the timing.
 */
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Snapshot } from "../../src/services/Terminal.js"
import { RecordedBackend, run } from "../support/tmux/RecordedBackend.js"

const BURSTS = 20
const BURST = 1_000

describe("tmux since reads following a fast command", () => {
  const rig = new RecordedBackend()
  beforeAll(async () => {
    await rig.open()
  })
  afterAll(() => rig.close())

  it("never skips or repeats a line while the pane scrolls and trims during the reads", async () => {
    const pane = await rig.pane()
    const { id, events } = await rig.ready(pane)
    const gates = join(rig.world.root, "burst-")
    const read = (since?: Snapshot["cursor"]) =>
      run(rig.backend.terminal.read(id, { maxLines: 200, maxChars: 100_000 }, since))
    let last = await read()
    // Bursts of BURST lines as fast as bash prints them, each after the test opened its gate.
    await rig.start(
      id,
      events,
      `for k in $(seq 1 ${BURSTS}); do for _ in $(seq 1 1200); do [ -e ${gates}$k ] && break; sleep 0.05; done; for i in $(seq $(( (k - 1) * ${BURST} + 1 )) $(( k * ${BURST} ))); do echo L$i; done; done`
    )
    let newest = 0
    let reads = 0
    for (let k = 1; k <= BURSTS; k++) {
      await rig.world.tmux("run-shell", `touch ${gates}${k}`)
      while (newest < k * BURST) {
        const snap = await read(last.cursor)
        reads++
        const numbers = snap.text
          .split("\n")
          .filter((l) => /^L\d+$/.test(l))
          .map((l) => Number(l.slice(1)))
        // At most one burst (less than the history keeps) was written since the last read.
        expect(snap.cursorLost, `read ${reads}`).toBe(false)
        if (numbers.length > 0) {
          const first = numbers[0]!
          expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => first + i))
          if (snap.truncated) expect(first).toBeGreaterThan(newest + 1)
          else expect(first, `read ${reads}`).toBe(newest + 1)
          newest = numbers.at(-1)!
        }
        last = snap
      }
    }
    expect(newest).toBe(BURSTS * BURST)
    await events.next("CommandEnd")
  }, 60_000)
})
