/**
 * TmuxWorld — a private tmux server for one test file: its own socket under a temp dir (never the
 * machine's default server), real bash shells with or without TermPilot's shell integration, a log of every line
 * each shell really read (`lines(pane)`), a human-like client in a real pty (node-pty), and the
 * backend under test (windows are named, so tmux's automatic-rename never changes a name mid-test) with the backend-independent CommandRunner on top. `close()` kills the server
 * on that socket and stops everything started here.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Layer, Scope } from "effect"
import * as pty from "node-pty"
import { afterAll, beforeAll } from "vitest"
import { makeCommandRunner } from "../../../src/layers/runner/CommandRunnerLive.js"
import { makeTmuxBackend, type TmuxBackend, type TmuxSettings } from "../../../src/layers/tmux/TmuxBackend.js"
import type { CommandRunner } from "../../../src/services/CommandRunner.js"
import { PromptTracker } from "../../../src/services/PromptTracker.js"
import { Terminal } from "../../../src/services/Terminal.js"
import { bashSnippet } from "../../../src/shell-integration/BashSnippet.js"

const HERE = new URL(".", import.meta.url).pathname

export interface ShellOptions {
  /** Source TermPilot's bash shell integration (default true). */
  readonly marks?: boolean
}

/** Poll `check` every 20 ms until it returns a value, up to `timeoutMs`. */
export const waitFor = async <A>(
  what: string,
  check: () => A | undefined | Promise<A | undefined>,
  timeoutMs = 10_000
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

export class TmuxWorld {
  readonly dir = mkdtempSync(join(tmpdir(), "tp-tmux-"))
  readonly socket = join(this.dir, "tmux.sock")
  readonly env: NodeJS.ProcessEnv
  private windows = 0
  private readonly humans: Array<pty.IPty> = []
  private readonly scopes: Array<Scope.CloseableScope> = []

  constructor() {
    const { TMUX: _t, TMUX_PANE: _p, ...env } = process.env
    // The marks are the product's own: the snippet `termpilot shell-integration bash` prints.
    const marksFile = join(this.dir, "integration.bash")
    writeFileSync(marksFile, bashSnippet)
    this.env = {
      ...env,
      TMUX_TMPDIR: this.dir,
      HOME: this.dir,
      TPT_DIR: this.dir,
      TPT_MARKS_FILE: marksFile,
      TERM: "xterm-256color",
      LANG: "C.UTF-8"
    }
  }

  /** Run tmux on this world's socket; returns stdout. */
  tmux(...args: Array<string>): string {
    return execFileSync("tmux", ["-S", this.socket, "-f", "/dev/null", ...args], {
      env: this.env,
      timeout: 5000,
      encoding: "utf8"
    })
  }

  private shell(options: ShellOptions): string {
    const marks = options.marks ?? true
    return `env TPT_MARKS=${marks ? 1 : 0} bash --noprofile --rcfile ${join(HERE, "test-rc.bash")} -i`
  }

  /** A new session with one shell; returns its pane id (`%N`). */
  newSession(name: string, options: ShellOptions = {}): string {
    return this.tmux(
      "new-session",
      "-d",
      "-s",
      name,
      "-n",
      "main",
      "-x",
      "120",
      "-y",
      "40",
      "-P",
      "-F",
      "#{pane_id}",
      this.shell(options)
    ).trim()
  }

  /** A new window in `session` with one shell; returns its pane id. */
  newWindow(session: string, options: ShellOptions = {}): string {
    return this.tmux(
      "new-window",
      "-d",
      "-n",
      `w${++this.windows}`,
      "-t",
      `${session}:`,
      "-P",
      "-F",
      "#{pane_id}",
      this.shell(options)
    ).trim()
  }

  /** Split `pane`; returns the new pane id. */
  split(pane: string, options: ShellOptions = {}): string {
    return this.tmux("split-window", "-d", "-t", pane, "-P", "-F", "#{pane_id}", this.shell(options)).trim()
  }

  /** Kill the server and wait until it is gone (a command sent meanwhile could reach the dying one). */
  async killServer(): Promise<void> {
    this.tmux("kill-server")
    await waitFor("the server to exit", () => {
      try {
        this.tmux("list-sessions")
        return undefined
      } catch (e) {
        // The socket file stays; "no server running" says nothing listens on it any more.
        return String((e as { stderr?: unknown }).stderr).includes("no server running") ? true : undefined
      }
    })
  }

  /** Visible text of a pane. */
  capture(pane: string): string {
    return this.tmux("capture-pane", "-p", "-t", pane)
  }

  /** Every line the pane's shell read so far (from its history, as it executed them). */
  lines(pane: string): Array<string> {
    const file = join(this.dir, `lines.${pane}`)
    return existsSync(file) ? readFileSync(file, "utf8").split("\n").slice(0, -1) : []
  }

  /** Wait until the pane's shell has drawn its prompt (its rc file ran). */
  async waitShell(pane: string): Promise<void> {
    await waitFor(`a prompt in ${pane}`, () => (/^\$\s*$/m.test(this.capture(pane)) ? true : undefined))
  }

  /** A person's client in a real pty of `cols`×`rows`, attached to `session` (null: tmux's pick). */
  async human(session: string | null, cols = 132, rows = 43): Promise<pty.IPty> {
    const target = session === null ? [] : ["-t", session]
    const p = pty.spawn("tmux", ["-S", this.socket, "attach-session", ...target], {
      cols,
      rows,
      env: this.env as Record<string, string>,
      name: "xterm-256color"
    })
    this.humans.push(p)
    await waitFor("the human client", () =>
      this.tmux("list-clients", "-F", "#{client_control_mode}").includes("0") ? true : undefined
    )
    return p
  }

  /** The backend under test, closed by `close()` (or `closeBackend`). */
  async backend(
    overrides: Partial<TmuxSettings> = {}
  ): Promise<TmuxBackend & { scope: Scope.CloseableScope }> {
    const scope = await Effect.runPromise(Scope.make())
    this.scopes.push(scope)
    const backend = await Effect.runPromise(
      makeTmuxBackend({
        sockets: [this.socket],
        tmuxPath: "tmux",
        ownPane: null,
        commandTimeoutMs: 3000,
        ...overrides
      }).pipe(Scope.extend(scope))
    )
    return { ...backend, scope }
  }

  /** A CommandRunner (CommandRunnerLive's own constructor) over `backend`. */
  async runner(backend: TmuxBackend): Promise<CommandRunner["Type"]> {
    const scope = await Effect.runPromise(Scope.make())
    this.scopes.push(scope)
    const layer = Layer.merge(
      Layer.succeed(Terminal, backend.terminal),
      Layer.succeed(PromptTracker, backend.tracker)
    )
    return Effect.runPromise(Effect.provide(makeCommandRunner(), layer).pipe(Scope.extend(scope)))
  }

  /**
   * The usual start: a session `work` whose shell is up, then the backend and a runner over it
   * (the backend attaches when it first lists).
   */
  async start(): Promise<{ backend: TmuxBackend; runner: CommandRunner["Type"]; first: string }> {
    const first = this.newSession("work")
    await this.waitShell(first)
    const backend = await this.backend()
    return { backend, runner: await this.runner(backend), first }
  }

  /** `start()` before the file's tests and `close()` after them; the returned object fills in then. */
  started(): { backend: TmuxBackend; runner: CommandRunner["Type"]; first: string } {
    const started = {} as { backend: TmuxBackend; runner: CommandRunner["Type"]; first: string }
    beforeAll(async () => {
      Object.assign(started, await this.start())
    })
    afterAll(() => this.close())
    return started
  }

  /** A new shell in its own window of `work`, up and drawn. */
  async freshPane(options: ShellOptions = {}): Promise<string> {
    const pane = this.newWindow("work", options)
    await this.waitShell(pane)
    return pane
  }

  /** The backend's session id of pane `%N` (from its listing). */
  async idOf(backend: TmuxBackend, pane: string): Promise<string> {
    const all = await run(backend.terminal.listSessions)
    const found = all.find(
      (s) => s.session_id.startsWith(`tmux:${this.socket}:`) && s.session_id.endsWith(`:${pane}`)
    )
    if (found === undefined) throw new Error(`pane ${pane} is not listed`)
    return found.session_id
  }

  /** Wait until the backend reports `readiness` for `sessionId`. */
  async until(backend: TmuxBackend, sessionId: string, readiness: string): Promise<void> {
    await waitFor(`${sessionId} ${readiness}`, async () =>
      (await run(backend.terminal.readiness(sessionId))) === readiness ? true : undefined
    )
  }

  /**
   * The id of a marked pane the backend has seen a prompt of drawn while it watched: Enter is
   * pressed once (as the docs tell a person to do where a prompt drawn earlier is not proved).
   */
  async readyPane(backend: TmuxBackend, pane: string): Promise<string> {
    await this.waitShell(pane)
    const id = await this.idOf(backend, pane)
    // Wait for the prompt drawn after this Enter (a prompt line more on the screen), not for a
    // state from before it nor for a redraw of the old prompt (a client that left resized the
    // window); the readiness poll below then reads the stream as of that screen.
    const prompts = () =>
      this.capture(pane)
        .split("\n")
        .filter((l) => /^\$\s*$/.test(l)).length
    const before = prompts()
    this.tmux("send-keys", "-t", pane, "Enter")
    await waitFor(`a new prompt in ${pane}`, () => (prompts() > before ? true : undefined))
    await this.until(backend, id, "ready")
    return id
  }

  async close(): Promise<void> {
    for (const scope of this.scopes.reverse()) await Effect.runPromise(Scope.close(scope, Exit.void))
    for (const h of this.humans) h.kill()
    try {
      this.tmux("kill-server")
    } catch {
      // already gone
    }
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** A run request with the tool's defaults (the runner tests' own). */
export { request } from "../../runner/support.js"

/** Run an Effect as a promise (tests are plain async). */
export const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)
