/**
 * TmuxWorld — a private tmux server for one test file: its own socket under a temp dir (and
 * TMUX_TMPDIR there too), never the machine's default server, started with `-f /dev/null` and a
 * clean environment. Sessions, windows and panes on demand, each pane a real shell under the
 * input Recorder (see PaneShell). Session ids are formed from what tmux itself reports (`#{pid}`,
 * `#{start_time}`, `#{pane_id}`), never by TermPilot's code. `close` kills the server it started.
 * It is the one world of the tmux tests: RecordedBackend runs the backend in process over it,
 * TmuxRig serves TermPilot's MCP tools over it, Proof reads its recorders.
 */
import { execFile, execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { PaneFiles, type ShellKind, writeArgvTool } from "./PaneShell.js"
import { FENCE, waitUntil } from "./Recorder.js"

const run = promisify(execFile)

export interface PaneOptions {
  readonly shell?: ShellKind
  readonly cwd?: string
  /** The window's name (for new sessions and windows). */
  readonly name?: string
  /** The recorder's argv[0] as tmux names it (PaneFiles.shellCommand); needs bash as tmux's default-shell. */
  readonly argv0?: string
}

export interface WorldPane {
  readonly world: TmuxWorld
  /** tmux's own pane id, `%N`. */
  readonly paneId: string
  /** The pane's process (`script`), as tmux started it. */
  readonly pid: number
  readonly files: PaneFiles
}

/** Worlds not closed yet (see `endLeftoverWorlds`). */
const open = new Set<TmuxWorld>()

/**
 * Ends the server of every world its test file did not close (a test that failed or timed out
 * before its `close`), so that no tmux outlives the file; the number ended. Run after each file by
 * test/support/IsolateTmux.ts.
 */
export const endLeftoverWorlds = (): number => {
  const left = [...open]
  for (const world of left) {
    world.killServerNow()
    open.delete(world)
    rmSync(world.root, { recursive: true, force: true })
  }
  return left.length
}

export class TmuxWorld {
  /** The tmux socket of this world's server. */
  readonly socket: string
  /** TMUX_TMPDIR for anything that would look for a default server. */
  readonly tmuxTmpdir: string
  /** HOME of the panes' shells (and of a spawned termpilot). */
  readonly home: string
  /** The panes of the running server. */
  readonly panes: Array<WorldPane> = []
  /** Panes of servers this world killed. */
  readonly retired: Array<WorldPane> = []
  private readonly bin: string
  private serverPid: number | null = null
  private count = 0
  private limitSessions = 0
  /** paste-buffer's flag for raw bytes: tmux 3.7 passes a buffer through vis(3) unless -S. */
  private rawPaste: ReadonlyArray<string> | undefined

  private constructor(
    readonly root: string,
    defaultSocket: boolean
  ) {
    this.tmuxTmpdir = join(root, "tmux-tmp")
    this.home = join(root, "home")
    this.bin = join(root, "bin")
    for (const dir of [this.tmuxTmpdir, this.home]) mkdirSync(dir, { recursive: true })
    writeArgvTool(this.bin)
    writeFileSync(join(root, "fence.bin"), FENCE)
    // The default server's socket is where `tmux` itself looks: $TMUX_TMPDIR/tmux-<uid>/default.
    const uid = process.getuid?.() ?? 0
    this.socket = defaultSocket ? join(this.tmuxTmpdir, `tmux-${uid}`, "default") : join(root, "sock")
    if (defaultSocket) mkdirSync(join(this.tmuxTmpdir, `tmux-${uid}`), { mode: 0o700 })
  }

  /**
   * A new, empty world (no server until the first session). With `defaultSocket`, its server is
   * the default one of its TMUX_TMPDIR, as a user's plain `tmux` would start it.
   */
  static create(options: { readonly defaultSocket?: boolean } = {}): TmuxWorld {
    const world = new TmuxWorld(mkdtempSync(join(tmpdir(), "tp-tmux-")), options.defaultSocket === true)
    open.add(world)
    return world
  }

  /** The environment the server (and so every pane) starts with: nothing of the test runner's tmux. */
  env(): Record<string, string> {
    return {
      PATH: `${this.bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      HOME: this.home,
      TMUX_TMPDIR: this.tmuxTmpdir,
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      TERM: "xterm-256color",
      SHELL: "/bin/bash"
    }
  }

  /** Runs `tmux -S <socket> -f /dev/null ARGS` (10 s bound); its stdout. */
  async tmux(...args: ReadonlyArray<string>): Promise<string> {
    const { stdout } = await run("tmux", ["-S", this.socket, "-f", "/dev/null", ...args], {
      env: this.env(),
      timeout: 10_000,
      maxBuffer: 64 * 1024 * 1024
    })
    return stdout
  }

  /** `display -p` of a format for one target. */
  async format(target: string, format: string): Promise<string> {
    return (await this.tmux("display", "-p", "-t", target, format)).replace(/\n$/, "")
  }

  /** A new detached session (starting the server if needed) with one pane. */
  async newSession(session: string, options: PaneOptions & { width?: number; height?: number } = {}) {
    const size = ["-x", String(options.width ?? 160), "-y", String(options.height ?? 50)]
    const pane = await this.spawnPane(["new-session", "-d", "-s", session, ...size], options)
    if (this.serverPid === null) {
      this.serverPid = Number(await this.tmux("display", "-p", "#{pid}"))
      await this.tmux("set", "-g", "history-limit", "10000")
    }
    return pane
  }

  /**
   * A pane in a new session of its own whose history-limit is `limit`, on every tmux: tmux fixes a
   * pane's limit when the pane is made, and 3.7 also applies a changed limit to existing panes
   * (from their session's value), so the session keeps `limit` as its own. The server must be up.
   */
  async paneWithHistoryLimit(limit: number, options: PaneOptions = {}): Promise<WorldPane> {
    const session = `limit-${++this.limitSessions}`
    await this.tmux("set", "-g", "history-limit", String(limit))
    try {
      const pane = await this.newSession(session, options)
      await this.tmux("set", "-t", session, "history-limit", String(limit))
      return pane
    } finally {
      await this.tmux("set", "-g", "history-limit", "10000")
    }
  }

  /** Whether the server is up and has a session of exactly this name. */
  hasSession(session: string): Promise<boolean> {
    return this.tmux("has-session", "-t", `=${session}`).then(
      () => true,
      () => false
    )
  }

  /** A new window in `session`. */
  newWindow(session: string, options: PaneOptions = {}): Promise<WorldPane> {
    return this.spawnPane(["new-window", "-d", "-t", `${session}:`], options)
  }

  /** A new pane split off `pane`. */
  split(pane: WorldPane, options: PaneOptions = {}): Promise<WorldPane> {
    return this.spawnPane(["split-window", "-d", "-t", pane.paneId], options)
  }

  /**
   * A window of `count` panes laid out `tiled` before any shell starts (placeholders respawned
   * with the shells), so no pane is resized — and no prompt redrawn — after its shell is up.
   */
  async tiledWindow(session: string, count: number, options: PaneOptions = {}): Promise<Array<WorldPane>> {
    const hold = "exec sleep 3600"
    const first = (
      await this.tmux("new-window", "-d", "-t", `${session}:`, "-P", "-F", "#{pane_id}", hold)
    ).trim()
    for (let i = 1; i < count; i++) await this.tmux("split-window", "-d", "-t", first, hold)
    await this.tmux("select-layout", "-t", first, "tiled")
    const ids = (await this.tmux("list-panes", "-t", first, "-F", "#{pane_id}"))
      .split("\n")
      .filter((l) => l !== "")
    const panes: Array<WorldPane> = []
    for (const id of ids) panes.push(await this.spawnPane(["respawn-pane", "-k", "-t", id], options, id))
    return panes
  }

  private async spawnPane(
    command: ReadonlyArray<string>,
    options: PaneOptions,
    respawned?: string
  ): Promise<WorldPane> {
    const files = new PaneFiles(join(this.root, "panes", `p${this.count++}`))
    const env = Object.entries({ ...this.env(), TPW_PANE_DIR: files.dir }).flatMap(([k, v]) => [
      "-e",
      `${k}=${v}`
    ])
    const where = [...(options.cwd === undefined ? [] : ["-c", options.cwd])]
    const name = options.name === undefined || respawned !== undefined ? [] : ["-n", options.name]
    const shell = files.shellCommand(options.shell ?? "bash", options.argv0)
    const print = respawned === undefined ? ["-P", "-F", "#{pane_id} #{pane_pid}"] : []
    const out = await this.tmux(...command, ...print, ...env, ...where, ...name, shell)
    const [paneId, pid] =
      respawned === undefined
        ? out.trim().split(" ")
        : [respawned, await this.format(respawned, "#{pane_pid}")]
    const pane: WorldPane = { world: this, paneId: paneId!, pid: Number(pid), files }
    this.panes.push(pane)
    await this.waitForScreen(pane, (screen) => screen.includes("tp$"))
    return pane
  }

  /** TermPilot's session id of a pane, formed from the server's own `#{pid}.#{start_time}`. */
  async sessionId(pane: WorldPane): Promise<string> {
    const identity = await this.tmux("display", "-p", "-t", pane.paneId, "#{pid}.#{start_time}")
    return `tmux:${this.socket}:${identity.trim()}:${pane.paneId}`
  }

  /** The visible screen of a pane, trailing blank lines dropped. */
  async screen(pane: WorldPane): Promise<string> {
    return (await this.tmux("capture-pane", "-p", "-t", pane.paneId)).replace(/\n+$/, "")
  }

  async waitForScreen(pane: WorldPane, check: (screen: string) => boolean, timeoutMs = 10_000) {
    let last = ""
    await waitUntil(
      `${pane.paneId}'s screen`,
      async () => {
        last = await this.screen(pane)
        return check(last)
      },
      timeoutMs
    ).catch((error: Error) => {
      throw new Error(`${error.message}; screen: ${JSON.stringify(last.slice(-300))}`)
    })
  }

  /** Types text into a pane as a person would (hex bytes: no tmux parsing), without Enter. */
  async type(pane: WorldPane, text: string): Promise<void> {
    const hex = [...Buffer.from(text, "utf8")].map((b) => b.toString(16).padStart(2, "0"))
    await this.tmux("send-keys", "-t", pane.paneId, "-H", ...hex)
  }

  /** Presses one key (tmux key name, e.g. Enter, C-c). */
  async press(pane: WorldPane, key: string): Promise<void> {
    await this.tmux("send-keys", "-t", pane.paneId, key)
  }

  /** Types a line and presses Enter, then waits for `until` on the screen (the user runs it). */
  async runAsUser(pane: WorldPane, line: string, until: (screen: string) => boolean): Promise<void> {
    await this.type(pane, line)
    await this.press(pane, "Enter")
    await this.waitForScreen(pane, until)
  }

  /**
   * Waits until a pane's recorder has not grown for `quietMs` (a program answering its own
   * terminal queries, as vim does at start, has finished), within 10 s.
   */
  async settled(pane: WorldPane, quietMs = 400): Promise<void> {
    let size = pane.files.recorder.mark()
    let since = Date.now()
    await waitUntil(`${pane.paneId}'s input to settle`, () => {
      const now = pane.files.recorder.mark()
      if (now !== size) {
        size = now
        since = Date.now()
      }
      return Date.now() - since >= quietMs
    })
  }

  /** Pane ids that exist now, with whether each is dead. */
  async livePanes(): Promise<Map<string, boolean>> {
    const out = await this.tmux("list-panes", "-a", "-F", "#{pane_id} #{pane_dead}").catch(() => "")
    const panes = new Map<string, boolean>()
    for (const line of out.split("\n").filter((l) => l !== "")) {
      const [id, dead] = line.split(" ")
      panes.set(id!, dead === "1")
    }
    return panes
  }

  /**
   * Pastes the fence byte into each pane (paste-buffer goes past copy mode and is never
   * synchronized) and waits until each recorder has it: whatever tmux wrote to a pane before is
   * then in its log.
   */
  async fence(panes: ReadonlyArray<WorldPane>, marks: ReadonlyArray<number>): Promise<void> {
    this.rawPaste ??= tmuxAtLeast(await this.tmux("-V"), 3, 7) ? ["-S"] : []
    await this.tmux("load-buffer", "-b", "tpw-fence", join(this.root, "fence.bin"))
    for (const pane of panes) {
      await this.tmux("paste-buffer", ...this.rawPaste, "-b", "tpw-fence", "-t", pane.paneId)
    }
    await waitUntil("the fence in every pane's recorder", () =>
      panes.every((pane, i) => pane.files.recorder.since(marks[i]!).includes(FENCE))
    )
  }

  /**
   * Ends the server (kill-server, then SIGKILL by its pid if it lingers). Its panes are retired
   * (a restarted server reuses `%N`); the world can start a new server on the same socket.
   */
  async killServer(): Promise<void> {
    const panes = this.panes.splice(0)
    this.retired.push(...panes)
    const pid = this.serverPid
    await this.tmux("kill-server").catch(() => undefined)
    if (pid !== null) {
      await waitUntil(`tmux server ${pid} to exit`, () => !alive(pid), 5_000).catch(() => {
        if (alive(pid)) process.kill(pid, "SIGKILL")
      })
    }
    this.serverPid = null
    await reap(panes)
  }

  /** Kills the server and removes the world's files. */
  async close(): Promise<void> {
    await this.killServer()
    open.delete(this)
    rmSync(this.root, { recursive: true, force: true })
  }

  /** For a world never closed: kill-server on its socket (2 s bound), then SIGKILL its pid. */
  killServerNow(): void {
    try {
      execFileSync("tmux", ["-S", this.socket, "kill-server"], { stdio: "ignore", timeout: 2_000 })
    } catch {}
    if (this.serverPid !== null && alive(this.serverPid)) process.kill(this.serverPid, "SIGKILL")
  }
}

/**
 * Ends the panes' processes, which a closed pty does not always end (`script` can outlive its
 * pane): SIGHUP to each shell (bash passes it to its jobs; `script` exits with its child), then
 * SIGKILL whatever is left after 3 s. Only pids that still carry the pane's own TPW_PANE_DIR.
 */
const reap = async (panes: ReadonlyArray<WorldPane>): Promise<void> => {
  const pids = panes.flatMap((pane) =>
    [pane.files.shellPid(), pane.pid].filter((pid): pid is number => pid !== null && ours(pid, pane))
  )
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name)
    } catch {
      // already gone
    }
  }
  for (const pid of pids) signal(pid, "SIGHUP")
  await waitUntil("the panes' processes to exit", () => !pids.some(alive), 3_000).catch(() => {
    for (const pid of pids.filter(alive)) signal(pid, "SIGKILL")
  })
}

/** Whether `pid` is a process of this pane (not a later process that reused the number). */
const ours = (pid: number, pane: WorldPane): boolean => {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1")
      .split("\0")
      .includes(`TPW_PANE_DIR=${pane.files.dir}`)
  } catch {
    return false
  }
}

/** Whether a process is still running (a zombie waiting for its reaper has ended). */
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

/** Whether `tmux -V` output (`tmux 3.7c`, `tmux next-3.8`, `tmux master`) is at least major.minor. */
const tmuxAtLeast = (version: string, major: number, minor: number): boolean => {
  const m = /(\d+)\.(\d+)/.exec(version)
  if (m === null) return true
  const [a, b] = [Number(m[1]), Number(m[2])]
  return a > major || (a === major && b >= minor)
}
