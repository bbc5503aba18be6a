/**
 * TmuxShell — a real shell in a pane of a private tmux server (own socket under a temp dir, killed on
 * close), its raw output recorded with `pipe-pane`. Lines are typed as hex keys (no tmux parsing of
 * `;` or key names); every wait has a deadline.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { marksIn } from "./ShellStream.js"

const run = promisify(execFile)
const WAIT_MS = 15_000
const POLL_MS = 50
/** The stream is taken as settled once it has not grown for this long (a wait, never an assertion). */
const QUIET_MS = 300

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The environment for tmux and everything it starts: no outer tmux, a private TMUX_TMPDIR and HOME. */
export const cleanEnv = (
  dir: string,
  extra: Readonly<Record<string, string>> = {}
): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: dir,
  LANG: "C.UTF-8",
  TERM: "xterm-256color",
  TMUX_TMPDIR: dir,
  HISTFILE: "", // no history written into the temp dir when the shells exit
  ...extra
})

/** Polls `read` until `done` holds, then until it stops changing; fails with `what` at the deadline. */
export const waitSettled = async (read: () => string, done: (text: string) => boolean, what: string) => {
  const deadline = Date.now() + WAIT_MS
  let text = read()
  while (!done(text)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(text)}`)
    await sleep(POLL_MS)
    text = read()
  }
  let stableSince = Date.now()
  while (Date.now() - stableSince < QUIET_MS && Date.now() < deadline) {
    await sleep(POLL_MS)
    const next = read()
    if (next !== text) {
      text = next
      stableSince = Date.now()
    }
  }
  return text
}

/** True once `text` holds a prompt that was completely drawn: an A mark, then a B mark. */
export const promptDrawn = (text: string): boolean => {
  const marks = marksIn(text).map((m) => m.mark)
  const a = marks.indexOf("A")
  return a >= 0 && marks.indexOf("B", a) > a
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

export class TmuxShell {
  private constructor(
    readonly dir: string,
    private readonly socket: string,
    private readonly outFile: string
  ) {}

  /** Starts `argv` in a fresh server's only pane and records it; the shell's rc is typed by the caller. */
  static async start(argv: ReadonlyArray<string>): Promise<TmuxShell> {
    const dir = mkdtempSync(join(tmpdir(), "tp-shell-"))
    const shell = new TmuxShell(dir, join(dir, "tmux.sock"), join(dir, "pane.out"))
    writeFileSync(shell.outFile, "")
    try {
      await shell.tmux("new-session", "-d", "-x", "120", "-y", "30", ...argv)
      await shell.tmux("pipe-pane", "-o", "-t", "%0", `cat >> '${shell.outFile}'`)
      // The first prompt may be drawn before the pipe exists: wait for it on the screen instead.
      const deadline = Date.now() + WAIT_MS
      while ((await shell.tmux("capture-pane", "-p", "-t", "%0")).trim() === "") {
        if (Date.now() > deadline) throw new Error(`${argv.join(" ")} drew no prompt`)
        await sleep(POLL_MS)
      }
      return shell
    } catch (error) {
      await shell.close()
      throw error
    }
  }

  async tmux(...args: ReadonlyArray<string>): Promise<string> {
    const { stdout } = await run("tmux", ["-S", this.socket, "-f", "/dev/null", ...args], {
      env: cleanEnv(this.dir),
      timeout: 5_000
    })
    return stdout
  }

  /** Everything the pane printed since recording started. */
  raw(): string {
    return readFileSync(this.outFile, "utf8")
  }

  /** Types `text` exactly (hex keys, 512 at a time: tmux 3.7 refuses a longer command), then Enter unless `enter` is false. */
  async type(text: string, enter = true): Promise<void> {
    const hex = [...Buffer.from(text, "utf8")].map((b) => b.toString(16).padStart(2, "0"))
    for (let i = 0; i < hex.length; i += 512)
      await this.tmux("send-keys", "-t", "%0", "-H", ...hex.slice(i, i + 512))
    if (enter) await this.tmux("send-keys", "-t", "%0", "Enter")
  }

  async key(name: string): Promise<void> {
    await this.tmux("send-keys", "-t", "%0", name)
  }

  /** Runs `action`, then returns what the pane printed from then until `done` held and the stream settled. */
  async segment(
    action: () => Promise<void>,
    done: (text: string) => boolean = promptDrawn,
    what = "a prompt"
  ) {
    const start = this.raw().length
    await action()
    return waitSettled(() => this.raw().slice(start), done, what)
  }

  /** Types `line` + Enter and returns the output until the next prompt is drawn. */
  line(line: string): Promise<string> {
    return this.segment(() => this.type(line), promptDrawn, `the prompt after ${JSON.stringify(line)}`)
  }

  /** The pane's `@termpilot_tokens` option, split on spaces. */
  async tokens(): Promise<ReadonlyArray<string>> {
    const value = await this.tmux("display", "-p", "-t", "%0", "#{@termpilot_tokens}")
    return value.split(/\s+/).filter((t) => t !== "")
  }

  /** Kills the server, waits (bounded) for the panes' shells to exit, then removes the temp dir. */
  async close(): Promise<void> {
    const pids = (await this.tmux("list-panes", "-a", "-F", "#{pane_pid}").catch(() => ""))
      .split("\n")
      .map(Number)
      .filter((pid) => pid > 0)
    await this.tmux("kill-server").catch(() => undefined)
    const deadline = Date.now() + 5_000
    while (pids.some(alive) && Date.now() < deadline) await sleep(POLL_MS)
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  }
}
