/**
 * Server (TmuxServer) — one life of one tmux server: its identity (`#{pid}.#{start_time}`), one
 * control client per tmux session (tmux streams `%output` only for the attached session), and its
 * panes (PaneTable.ts, each pane's state owned by its PaneEntry.ts). Pane death is noticed from
 * notifications and, while anything is watched, a short poll (3.3a announces no pane exit; a dead
 * remain-on-exit pane says nothing at all). When its last client goes, the server is gone:
 * watchers get `Lost`. Its sessions are listed by Sessions.ts.
 */
import { existsSync } from "node:fs"
import { Deferred, Effect, type Queue } from "effect"
import {
  FLAG_FIELDS,
  type FlagRow,
  flagsLine,
  formatOf,
  paneNumber,
  parseFields
} from "../../../domain/tmux/PaneFormat.js"
import type { ServerIdentity } from "../../../domain/tmux/TmuxId.js"
import { fail, type TermPilotError } from "../../../services/Errors.js"
import type { PromptEvent } from "../../../services/PromptTracker.js"
import { releaseAll } from "./Claims.js"
import { type ControlClient, type ControlHooks, type ControlTarget, openControlClient } from "./Connection.js"
import { PaneTable } from "./PaneTable.js"
import { NO_SERVER, sessionsByActivity } from "./Sessions.js"
import type { TmuxTransport } from "./Transport.js"

/** How often panes are checked while something is watched (a dead pane says nothing). */
export const WATCH_POLL_MS = 250

/** Notifications after which panes may have gone or moved, or sessions appeared. */
const STRUCTURAL = new Set([
  "%sessions-changed",
  "%session-changed",
  "%client-session-changed",
  "%window-add",
  "%window-close",
  "%unlinked-window-add",
  "%unlinked-window-close",
  "%window-pane-changed",
  "%layout-change",
  "%session-window-changed"
])

const SWEEP_LINE = `list-panes -a -F ${formatOf(["pane_id", "pane_dead", "session_id"])}`
const IDENTITY_LINE = `display -p ${formatOf(["pid", "start_time", "version", "session_id"])}`

export interface ServerSettings {
  readonly commandTimeoutMs: number
}

export class TmuxServer {
  readonly clients = new Map<string, ControlClient>()
  readonly panes: PaneTable
  private readonly attaching = new Map<string, Deferred.Deferred<ControlClient, TermPilotError>>()
  identity: ServerIdentity = { socket: "", pid: 0, startTime: 0 }
  version = ""
  private closed = false
  private sweeping = false
  private sweepAgain = false
  private poll: NodeJS.Timeout | null = null

  /** Where the server is, for messages (TmuxTransport.where, Transport.ts). */
  readonly socket: string

  private constructor(
    readonly transport: TmuxTransport,
    private readonly settings: ServerSettings
  ) {
    this.socket = transport.where
    this.panes = new PaneTable(transport.host !== null)
  }

  /**
   * Whether the server runs on another host: its processes are not this machine's, so nothing
   * about them is read from /proc here (Foreground.ts, EarlierPrompt.ts).
   */
  get remote(): boolean {
    return this.transport.host !== null
  }

  /**
   * Attach to every session, least recently active first: attaching counts as activity, and a
   * person's plain `tmux attach` picks the most recently active session, so the order they left
   * is kept. Fails when no server answers.
   */
  static open(transport: TmuxTransport, settings: ServerSettings): Effect.Effect<TmuxServer, TermPilotError> {
    return Effect.gen(function* () {
      const socket = transport.where
      if (transport.host === null && !existsSync(socket))
        return yield* fail("tmux_unavailable", `No tmux server is running at ${socket}.`)
      const order = yield* sessionsByActivity(transport, settings.commandTimeoutMs)
      const first = order[0]
      if (first === undefined)
        return yield* fail(
          "tmux_unavailable",
          `The tmux server at ${socket} has no session.`,
          transport.host === null ? undefined : NO_SERVER
        )
      const server = new TmuxServer(transport, settings)
      const client = yield* openControlClient(server.target(first), server.hooks)
      const reply = yield* client
        .command(IDENTITY_LINE)
        .pipe(Effect.tapError(() => Effect.promise(() => client.close())))
      const row = parseFields(["pid", "start_time", "version", "session_id"], reply[0] ?? "")
      if (row === null || !/^\d+$/.test(row.pid) || !/^\d+$/.test(row.start_time)) {
        yield* Effect.promise(() => client.close())
        return yield* fail("tmux_unavailable", `The tmux server at ${socket} gave no identity.`)
      }
      server.identity = {
        ...(transport.host === null ? {} : { host: transport.host.spec }),
        socket: transport.socket ?? "default",
        pid: Number(row.pid),
        startTime: Number(row.start_time)
      }
      server.version = row.version
      server.clients.set(first, client)
      for (const session of order.slice(1)) yield* Effect.ignore(server.ensureClient(session))
      return server
    })
  }

  get alive(): boolean {
    return !this.closed && [...this.clients.values()].some((c) => c.isOpen)
  }

  /** Any open client, for commands that are not about one pane's stream. */
  primary(): Effect.Effect<ControlClient, TermPilotError> {
    for (const client of this.clients.values()) if (client.isOpen) return Effect.succeed(client)
    return Effect.fail(fail("tmux_unavailable", `The tmux server at ${this.socket} went away.`))
  }

  /** The client that streams `pane` (so its replies are ordered after the pane's output), else any. */
  clientFor(pane: number): Effect.Effect<ControlClient, TermPilotError> {
    const owner = this.panes.get(pane)?.owner
    return owner?.isOpen === true ? Effect.succeed(owner) : this.primary()
  }

  /** The one-pane flag row, or null when tmux has no such pane (`display` answers empty for one). */
  flags(pane: number): Effect.Effect<FlagRow | null, TermPilotError> {
    return Effect.flatMap(this.clientFor(pane), (client) =>
      Effect.map(client.command(flagsLine(pane)), (lines) => {
        const row = parseFields(FLAG_FIELDS, lines[0] ?? "")
        return row !== null && row.pane_id === `%${pane}` ? row : null
      })
    )
  }

  /** A control client attached to `session` (`$N`), attaching one if there is none yet. */
  ensureClient(session: string): Effect.Effect<ControlClient, TermPilotError> {
    const existing = this.clients.get(session)
    if (existing?.isOpen === true) return Effect.succeed(existing)
    const inflight = this.attaching.get(session)
    if (inflight !== undefined) return Deferred.await(inflight)
    const done = Deferred.makeUnsafe<ControlClient, TermPilotError>()
    this.attaching.set(session, done)
    return openControlClient(this.target(session), this.hooks).pipe(
      Effect.tap((client) => {
        if (this.closed) return Effect.promise(() => client.close())
        this.clients.set(session, client)
        return Effect.void
      }),
      Effect.exit,
      Effect.flatMap((exit) => {
        this.attaching.delete(session)
        return Effect.andThen(Deferred.done(done, exit), exit)
      })
    )
  }

  /** Register a watcher of `pane`; the poll runs while any pane is watched. */
  addWatcher(pane: number, queue: Queue.Queue<PromptEvent>): void {
    this.panes.entry(pane).watch(queue)
    if (this.poll === null && !this.closed) {
      this.poll = setInterval(() => this.sweep(), WATCH_POLL_MS)
      this.poll.unref()
    }
  }

  removeWatcher(pane: number, queue: Queue.Queue<PromptEvent>): void {
    this.panes.get(pane)?.unwatch(queue)
    if (this.poll !== null && !this.panes.watched) {
      clearInterval(this.poll)
      this.poll = null
    }
  }

  /** Check which panes still exist (and are alive); end watches of the others; attach new sessions. */
  sweep(): void {
    if (this.closed) return
    if (this.sweeping) {
      this.sweepAgain = true
      return
    }
    const client = [...this.clients.values()].find((c) => c.isOpen)
    if (client === undefined) return
    this.sweeping = true
    client.request([SWEEP_LINE], false, [
      (error, reply) => {
        this.sweeping = false
        if (error === null && reply?.ok === true) this.applySweep(reply.lines)
        if (this.sweepAgain) {
          this.sweepAgain = false
          this.sweep()
        }
      }
    ])
  }

  /** Close every client (stdin first, then by pid). */
  close(): Promise<void> {
    this.closed = true
    if (this.poll !== null) clearInterval(this.poll)
    this.poll = null
    return this.releaseClaims().then(() =>
      Promise.all([...this.clients.values()].map((c) => c.close())).then(() => undefined)
    )
  }

  /** Gives back every claim this process holds on the server's panes (Claims.ts), waiting at most a second. */
  private releaseClaims(): Promise<void> {
    const held = [...this.panes.all()].filter((e) => e.claim.held && e.owner?.isOpen === true)
    if (held.length === 0) return Promise.resolve()
    return new Promise<void>((resolve) => {
      let left = held.length
      const timer = setTimeout(resolve, 1_000)
      const done = () => {
        if (--left === 0) {
          clearTimeout(timer)
          resolve()
        }
      }
      for (const entry of held) releaseAll(entry.owner!, entry.pane, entry.claim, done)
    })
  }

  private applySweep(lines: ReadonlyArray<string>): void {
    const sessionsOf = new Map<number, Array<string>>()
    const dead = new Set<number>()
    for (const line of lines) {
      const row = parseFields(["pane_id", "pane_dead", "session_id"], line)
      const pane = row === null ? null : paneNumber(row.pane_id)
      if (row === null || pane === null) continue
      sessionsOf.set(pane, [...(sessionsOf.get(pane) ?? []), row.session_id])
      if (row.pane_dead === "1") dead.add(pane)
      if (!this.clients.has(row.session_id) && !this.attaching.has(row.session_id)) {
        Effect.runFork(Effect.ignore(this.ensureClient(row.session_id)))
      }
    }
    for (const entry of this.panes.all()) {
      const sessions = sessionsOf.get(entry.pane)
      if (sessions === undefined || dead.has(entry.pane)) entry.end()
      if (sessions === undefined) this.panes.delete(entry.pane)
      // A pane moved to another session streams through that session's client from now on.
      else entry.keepOwnerIn(sessions)
    }
  }

  private target(session: string | null): ControlTarget {
    return { transport: this.transport, session, timeoutMs: this.settings.commandTimeoutMs }
  }

  private readonly hooks: ControlHooks = {
    onOutput: (client, pane, bytes) => this.panes.feed(client, pane, bytes),
    onNotification: (_client, name) => {
      if (STRUCTURAL.has(name)) this.sweep()
    },
    onClose: (client) => {
      for (const [session, c] of this.clients) if (c === client) this.clients.delete(session)
      if (this.closed) return
      if (this.alive) {
        this.sweep()
        return
      }
      this.closed = true
      if (this.poll !== null) clearInterval(this.poll)
      const message = `The tmux server at ${this.socket} went away (or TermPilot's control client was detached).`
      this.panes.lose(message)
    }
  }
}
