/**
 * QuietCollect — TermPilot hands back the memory a burst of work left behind as soon as it goes
 * quiet. Left to itself, V8 returns the garbage of a burst (a flood of `%output`, a start-up, a
 * run of tool calls) only when its memory reducer gets to it, 8 s or more after the burst, and
 * often not at all while a timer or a pane keeps the process from looking idle: until then the
 * heap keeps the size the burst grew it to. Here every garbage collection V8 reports (it collects
 * the young generation each time the program has allocated about 2 MB) starts a quiet timer
 * again; when QUIET_MS pass with no collection, the program has allocated next to nothing, and if
 * the heap grew by GROWTH_BYTES or more since the last full collection, V8 collects everything it
 * can and hands the freed pages back to the system (10–40 ms on TermPilot's heap). A process that allocates nothing sets no timer and
 * wakes for nothing.
 *
 * The collector is reached as V8 offers it (`--expose-gc`, set by the launcher on itself, then
 * read from a fresh context): no flag on any command line. Measured in docs/benchmarks.md
 * ("Memory, step by step").
 */
import { PerformanceObserver } from "node:perf_hooks"
import v8 from "node:v8"
import vm from "node:vm"

/** How long without any collection counts as quiet. */
export const QUIET_MS = 500

/** How much the heap must have grown since the last full collection to be worth one. */
export const GROWTH_BYTES = 2 * 1024 * 1024

type Collect = (options?: {
  readonly type?: "major" | "minor"
  readonly flavor?: "regular" | "last-resort"
}) => void

/** V8's own collector, or null when this V8 will not expose it (then nothing is collected early). */
const collector = (): Collect | null => {
  try {
    v8.setFlagsFromString("--expose-gc")
    const gc: unknown = vm.runInNewContext("gc")
    return typeof gc === "function" ? (gc as Collect) : null
  } catch {
    return null
  }
}

const usedHeap = (): number => v8.getHeapStatistics().used_heap_size

/**
 * Starts watching the collections; returns how to stop (tests and short commands need not).
 * Nothing is ever awaited on it, and its timer never keeps the process alive.
 */
export const collectWhenQuiet = (): (() => void) => {
  const gc = collector()
  if (gc === null) return () => {}
  let baseline = usedHeap()
  let timer: NodeJS.Timeout | undefined
  const quiet = () => {
    timer = undefined
    if (usedHeap() - baseline < GROWTH_BYTES) return
    // V8's collection for memory (as its memory reducer's): it also gives the freed pages back.
    // A regular full collection leaves them pooled, and the RSS where it was.
    gc({ type: "major", flavor: "last-resort" })
    baseline = usedHeap()
  }
  // Reported after the fact, our own full collection included: the timer it sets finds no growth.
  const observer = new PerformanceObserver(() => {
    if (timer === undefined) timer = setTimeout(quiet, QUIET_MS).unref()
    else timer.refresh()
  })
  observer.observe({ entryTypes: ["gc"] })
  return () => {
    observer.disconnect()
    if (timer !== undefined) clearTimeout(timer)
  }
}
