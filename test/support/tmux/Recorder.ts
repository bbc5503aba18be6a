/**
 * Recorder — what a pane really received. Every pane of a TmuxWorld runs its shell under
 * util-linux `script -f -I <log>`, which copies every byte tmux writes to the pane's terminal into
 * the log before the shell sees it. Tests read that log, not TermPilot's own account of what it
 * sent: a refusal is proven by the log not growing.
 */
import { existsSync, readFileSync } from "node:fs"

/** Reads one pane's input log (without `script`'s "Script started on …" header line). */
export class Recorder {
  constructor(readonly path: string) {}

  /** Every byte the pane has received so far. */
  bytes(): Buffer {
    if (!existsSync(this.path)) return Buffer.alloc(0)
    const raw = readFileSync(this.path)
    // `script` writes one header line, then the input bytes exactly as they came.
    const header = raw.indexOf(0x0a)
    const body = raw.subarray(header + 1)
    // …and, when it exits, a "\nScript done on …" footer.
    const footer = body.lastIndexOf("\nScript done on ")
    return footer < 0 ? body : body.subarray(0, footer)
  }

  /** A position in the log, for `since`. */
  mark(): number {
    return this.bytes().length
  }

  /** What arrived after a `mark()`. */
  since(mark: number): Buffer {
    return this.bytes().subarray(mark)
  }

  /** What arrived after a `mark()`, as text (UTF-8). */
  textSince(mark: number): string {
    return this.since(mark).toString("utf8")
  }
}

/** The byte the world's fence pastes into a pane (readline's set-mark: it types nothing). */
export const FENCE = "\0"

/** Polls `check` until it returns true or the deadline passes (then fails with `what`). */
export const waitUntil = async (
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  everyMs = 25
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
