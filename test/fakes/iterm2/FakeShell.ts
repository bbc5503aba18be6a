/**
 * FakeShell — one session's real bash in a PTY (node-pty) rendered by FakeScreen, with the state
 * iTerm2 derives from the byte stream: prompt marks (OSC 133), cwd/host/user (OSC 7, OSC 1337),
 * the alternate screen. Output can be held (an API transaction) and every wait is bounded.
 */
import { userInfo } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as pty from "node-pty"
import { type LocationReport, parseOsc7, parseOsc133, parseOsc1337 } from "../../../src/domain/Osc133.js"
import { findPackageRoot } from "../../../src/installation/PackageRoot.js"
import { FakePrompts, type PromptEvent } from "./FakePrompts.js"
import { FakeScreen } from "./FakeScreen.js"

/** The .bash files live beside the sources; compiled copies (dist/test/…, for the bench) use them there. */
const FAKE_DIR = join(findPackageRoot(dirname(fileURLToPath(import.meta.url))), "test", "fakes", "iterm2")
const RC_FILE = join(FAKE_DIR, "fake-bashrc.bash")
const INTEGRATION_FILE = join(FAKE_DIR, "shell-integration.bash")

export interface FakeShellOptions {
  readonly integration: boolean
  readonly cols: number
  readonly rows: number
  readonly scrollback: number
  readonly cwd: string
  readonly home: string
  readonly env?: Readonly<Record<string, string>>
}

export interface FakeShellListener {
  onPrompt(event: PromptEvent): void
  onOutput(): void
  onExit(): void
}

export class FakeShell {
  readonly screen: FakeScreen
  readonly prompts: FakePrompts
  readonly integration: boolean
  /** From OSC 7 / OSC 1337 CurrentDir; null until the shell reports one. */
  path: string | null = null
  hostname: string | null = null
  username: string | null = null
  exited = false
  private readonly pty: pty.IPty
  private held: Array<string> | null = null
  private readonly listeners = new Set<FakeShellListener>()
  private readonly changeWaiters = new Set<() => void>()
  private readonly exitPromise: Promise<void>

  constructor(options: FakeShellOptions) {
    this.integration = options.integration
    this.screen = new FakeScreen(options)
    this.prompts = new FakePrompts(this.screen)
    const parser = this.screen.term.parser
    parser.registerOscHandler(133, (payload) => {
      const mark = parseOsc133(payload)
      if (mark === null) return false
      const event = this.prompts.apply(mark, this.path)
      if (event !== undefined) for (const l of this.listeners) l.onPrompt(event)
      return true
    })
    parser.registerOscHandler(7, (payload) => this.location(parseOsc7(payload)))
    parser.registerOscHandler(1337, (payload) => this.location(parseOsc1337(payload)))

    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: options.home,
      USER: userInfo().username,
      LANG: "C.UTF-8",
      TERM: "xterm-256color",
      ...(options.integration ? { TP_FAKE_INTEGRATION: INTEGRATION_FILE } : {}),
      ...options.env
    }
    this.pty = pty.spawn("bash", ["--noprofile", "--rcfile", RC_FILE, "-i"], {
      name: "xterm-256color",
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env
    })
    this.pty.onData((data) => {
      if (this.held === null) this.feed(data)
      else {
        this.held.push(data)
        this.changed()
      }
    })
    this.exitPromise = new Promise((resolve) => {
      this.pty.onExit(() => {
        // Let output still in flight reach the screen before reporting the end.
        void this.screen.drain().then(() => {
          this.exited = true
          for (const l of this.listeners) l.onExit()
          this.changed()
          resolve()
        })
      })
    })
  }

  get pid(): number {
    return this.pty.pid
  }

  /** The PTY's device path, e.g. /dev/pts/3. */
  get tty(): string | null {
    return (this.pty as unknown as { _pty?: string })._pty ?? null
  }

  /** Foreground process name (node-pty reads it from the PTY's foreground process group). */
  get jobName(): string | null {
    if (this.exited) return null
    try {
      return this.pty.process
    } catch {
      return null
    }
  }

  addListener(listener: FakeShellListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Writes to the PTY as keyboard input (no-op once exited). */
  input(text: string): void {
    if (!this.exited) this.pty.write(text)
  }

  /** Stops feeding output to the terminal model ("time stands still") until `release`. */
  async hold(): Promise<void> {
    if (this.held === null) this.held = []
    await this.screen.drain()
  }

  /** What the shell wrote while output was held, not yet seen by the terminal model. */
  heldOutput(): string {
    return this.held?.join("") ?? ""
  }

  release(): void {
    const held = this.held
    this.held = null
    if (held !== null && held.length > 0) this.feed(held.join(""))
  }

  /** Resolves when `predicate` holds, re-checked after each parsed chunk and every 25 ms; rejects after `timeoutMs`. */
  waitUntil(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (predicate()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const check = () => {
        let ok = false
        try {
          ok = predicate()
        } catch (error) {
          finish()
          reject(error)
          return
        }
        if (ok) {
          finish()
          resolve()
        } else if (this.exited) {
          finish()
          reject(
            new Error(`FakeShell: session exited while waiting for ${what}\n${this.screen.screenText()}`)
          )
        }
      }
      const timer = setTimeout(() => {
        finish()
        reject(
          new Error(
            `FakeShell: timed out after ${timeoutMs} ms waiting for ${what}\n${this.screen.screenText()}`
          )
        )
      }, timeoutMs)
      // Also looked at every 25 ms: a condition on the process (jobName) can change with no output.
      const poll = setInterval(check, 25)
      const finish = () => {
        clearTimeout(timer)
        clearInterval(poll)
        this.changeWaiters.delete(check)
      }
      this.changeWaiters.add(check)
    })
  }

  /** True when the shell sits at a prompt waiting for input. */
  atPrompt(): boolean {
    if (this.integration) return this.prompts.last()?.phase === "editing"
    const cursor = this.screen.cursor()
    return this.screen.text(cursor.y, 0, cursor.x).endsWith("$ ")
  }

  /** Kills the shell (SIGHUP as when a window closes) and waits for it to be gone, bounded. */
  async kill(timeoutMs = 5000): Promise<void> {
    if (!this.exited) {
      this.release()
      try {
        this.pty.kill("SIGHUP")
      } catch {
        // already gone
      }
    }
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        try {
          process.kill(this.pty.pid, "SIGKILL")
        } catch {
          // already gone
        }
        resolve()
      }, timeoutMs)
    })
    await Promise.race([this.exitPromise, timeout])
    clearTimeout(timer)
    this.exited = true
  }

  dispose(): void {
    this.screen.dispose()
  }

  private feed(data: string): void {
    this.screen.write(data, () => {
      for (const l of this.listeners) l.onOutput()
      this.changed()
    })
  }

  private changed(): void {
    for (const check of [...this.changeWaiters]) check()
  }

  private location(report: LocationReport | null): boolean {
    if (report === null) return false
    if (report._tag === "Directory") {
      this.path = report.path
      if (report.host !== null) this.hostname = report.host
    } else {
      this.hostname = report.host
      if (report.user !== null) this.username = report.user
    }
    return true
  }
}
