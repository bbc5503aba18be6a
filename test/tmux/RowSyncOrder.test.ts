/**
 * A pane's grid replies against its stream when many panes write at once (issue 28's lost rows):
 * tmux writes a command's reply after all output queued before it, but one pane at a time, so a
 * pane's output queued after the reply can reach the control client before it while another
 * pane's older output still waits ahead of the reply (control.c, control_write_pending). Over a
 * real control client (ControlClient, the one TermPilot uses), panes of one session each print
 * plain lines in bursts, which the row model follows exactly, while the test asks each pane's
 * PaneEntry for its grid again and again. No reply may ever be called a mismatch (the model is
 * right throughout); replies that may be from earlier in the stream are "incomparable", and once
 * the panes are quiet every pane's rows match tmux's. A pane that writes alone is compared while it
 * writes (nothing can overtake its replies).
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type ControlClient, openControlClient } from "../../src/layers/backends/tmux/Connection.js"
import { PaneEntry, type RowsVerdict } from "../../src/layers/backends/tmux/PaneEntry.js"
import { localTransport } from "../../src/layers/backends/tmux/Transport.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import { TmuxWorld } from "../support/tmux/TmuxWorld.js"

const WINDOWS = 12
const BURST_MS = 4000
let world: TmuxWorld
let control: ControlClient
const entries = new Map<number, PaneEntry>()
/** The panes' start and stop signals (files in the world's directory). */
const file = (name: string) => join(world.root, name)

/**
 * A pane's program: once `hello.<name>` exists, a first line (its PaneEntry then syncs on its own);
 * once `go.<name>` does, bursts of 30 numbered lines with a short sleep between, until `stop.<name>`.
 */
const writer = (name: string) => {
  const wait = (f: string) => `while [ ! -e ${f} ]; do sleep 0.05; done`
  const lines = "for j in $(seq 30); do i=$((i+1)); printf 'line %d of a burst\\n' $i; done"
  const burst = `while [ ! -e ${file(`stop.${name}`)} ]; do ${lines}; sleep 0.02; done`
  return `${wait(file(`hello.${name}`))}; echo ready; ${wait(file(`go.${name}`))}; i=0; ${burst}; exec sleep 100000`
}

/** A new window of the session running `writer(name)`, with its PaneEntry. */
const window = async (name: string, first = false) => {
  const where = first
    ? ["new-session", "-d", "-s", "busy", "-x", "80", "-y", "24"]
    : ["new-window", "-d", "-t", "busy"]
  const id = (await world.tmux(...where, "-P", "-F", "#{pane_id}", "sh", "-c", writer(name))).trim()
  const entry = new PaneEntry(Number(id.slice(1)), false)
  entries.set(entry.pane, entry)
  return entry
}

beforeAll(async () => {
  world = TmuxWorld.create()
  await window("all", true)
  await world.tmux("set", "-g", "history-limit", "500")
  for (let i = 1; i < WINDOWS; i++) await window("all")
  const opened = openControlClient(
    { transport: localTransport("tmux", world.socket), session: "busy", timeoutMs: 10_000 },
    {
      onOutput: (c, pane, bytes) => entries.get(pane)?.feed(c, bytes),
      onNotification: () => undefined,
      onClose: () => undefined
    }
  )
  control = await Effect.runPromise(opened)
  writeFileSync(file("hello.all"), "")
})

afterAll(async () => {
  await control?.close()
  await world.close()
})

/** A reply's verdict, and whether the pane wrote while the request was on its way. */
interface Seen {
  readonly verdict: RowsVerdict
  readonly wrote: boolean
}

/** One grid request per pane of `panes` in one write, each reply given to its pane as it arrives. */
const ask = async (panes: ReadonlyArray<PaneEntry>): Promise<Array<Seen>> => {
  const asks = panes.map((entry) => ({ entry, ask: entry.gridAsk()! }))
  const seen: Array<Seen> = []
  await Effect.runPromise(
    control.commands(
      asks.map((a) => a.ask.line),
      false,
      (i, reply) => {
        const { entry, ask } = asks[i]!
        const verdict = reply.ok ? entry.syncRows(ask, reply.lines[0] ?? "") : null
        seen.push({ verdict, wrote: entry.stream.fed !== ask.fed })
      }
    )
  )
  return seen
}

/** Asks `panes` again and again for `ms`; what came back. */
const askFor = async (panes: ReadonlyArray<PaneEntry>, ms: number) => {
  const seen: Array<Seen> = []
  const until = Date.now() + ms
  while (Date.now() < until) seen.push(...(await ask(panes)))
  return seen
}

const tally = (seen: ReadonlyArray<Seen>) => {
  const count = (v: RowsVerdict) => seen.filter((s) => s.verdict === v).length
  return { matched: count("matched"), incomparable: count("incomparable"), mismatch: count("mismatch") }
}

/** Every pane of `panes` tracked (its first line made its PaneEntry sync), then asked until all match. */
const allMatch = async (panes: ReadonlyArray<PaneEntry>) => {
  await waitUntil("every pane tracked", () => panes.every((e) => e.stream.history.tracking))
  let last: Array<Seen> = []
  await waitUntil("every pane's rows matched", async () => {
    last = await ask(panes)
    return last.every((s) => s.verdict === "matched")
  })
  expect(last.map((s) => s.verdict)).toEqual(panes.map(() => "matched"))
}

it("never calls a grid reply a mismatch while other panes' output may have overtaken it", async () => {
  const panes = [...entries.values()]
  expect(panes).toHaveLength(WINDOWS)
  await allMatch(panes)
  writeFileSync(file("go.all"), "")
  const seen = await askFor(panes, BURST_MS)
  writeFileSync(file("stop.all"), "")
  const { matched, incomparable, mismatch } = tally(seen)
  const version = (await world.tmux("-V")).trim()
  console.log(
    `${version}: ${seen.length} replies while ${WINDOWS} panes wrote: ${matched} matched, ${incomparable} incomparable, ${mismatch} mismatch`
  )
  expect(mismatch).toBe(0)
  // The panes did write during the asks, with one another (else nothing above was tested).
  expect(incomparable).toBeGreaterThan(0)
  expect(matched + incomparable).toBe(seen.length)
  // Quiet again: every pane's rows are tmux's.
  await allMatch(panes)
}, 60_000)

it("compares the replies of a pane that writes alone while it writes", async () => {
  const alone = await window("alone")
  writeFileSync(file("hello.alone"), "")
  await allMatch([...entries.values()])
  writeFileSync(file("go.alone"), "")
  const seen = await askFor([alone], 1500)
  writeFileSync(file("stop.alone"), "")
  const wrote = seen.filter((s) => s.wrote)
  // It wrote while asked, and each such reply was compared, and matched: nothing else wrote.
  expect(wrote.length).toBeGreaterThan(0)
  expect(tally(wrote)).toEqual({ matched: wrote.length, incomparable: 0, mismatch: 0 })
  expect(tally(seen).matched).toBe(seen.length)
}, 60_000)
