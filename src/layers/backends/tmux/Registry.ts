/**
 * Registry (TmuxRegistry) — the configured tmux servers and the server living behind each,
 * rediscovered on every call: local sockets, and the default tmux server of each configured host reached over ssh
 * (Transport.ts). A socket with no server contributes nothing, a server that appears later is
 * picked up, one that died is dropped (its ids are `tmux_unavailable` while nothing answers there,
 * and `session_not_found` once another server life answers there). A host is waited for at most
 * its own bound (a host that hangs never holds the others), and after a failure it is tried again
 * with backoff, a caller then waiting at most a short grace for that retry; a host whose tmux runs no server contributes nothing and is not an error. Ids
 * resolve strictly: an id names its host, and a host that is not configured resolves nothing.
 */
import { existsSync } from "node:fs"
import { resolve as resolvePath } from "node:path"
import { Cause, Deferred, Duration, Effect, Exit, Option, Result } from "effect"
import type { TmuxHost } from "../../../domain/tmux/TmuxHost.js"
import { parsePaneId, sameServer, type TmuxPaneId } from "../../../domain/tmux/TmuxId.js"
import { fail, sessionNotFound, type TermPilotError } from "../../../services/Errors.js"
import { type ServerSettings, TmuxServer } from "./Server.js"
import { isNoServer } from "./Sessions.js"
import { localTransport, type SshSettings, sshTransport, type TmuxTransport } from "./Transport.js"

export interface ResolvedPane {
  readonly server: TmuxServer
  readonly pane: number
  readonly id: TmuxPaneId
}

/** A configured host that did not answer a listing, and why. */
export interface HostUnavailable {
  readonly host: string
  readonly error: TermPilotError
}

export interface RegistrySettings extends ServerSettings {
  readonly tmuxPath: string
  readonly hosts?: ReadonlyArray<TmuxHost>
  readonly ssh?: Omit<SshSettings, "connectTimeoutMs">
}

/** The first retry of a host after a failure, and the longest wait between tries. */
const BACKOFF_FIRST_MS = 1_000
const BACKOFF_MAX_MS = 30_000
/**
 * How long a caller waits for the retry of a host whose last attempt failed (at most the command
 * timeout): longer, and it is answered with that failure while the retry goes on by itself, so a
 * host that hangs costs the listings only this each time its backoff lapses, not the whole timeout.
 */
const RETRY_GRACE_MS = 1_500

interface Backoff {
  readonly retryAt: number
  readonly delay: number
  readonly error: TermPilotError
}

const hostKey = (spec: string) => `ssh:${spec}`

export class TmuxRegistry {
  private readonly servers = new Map<string, TmuxServer>()
  private readonly opening = new Map<string, Deferred.Deferred<TmuxServer, TermPilotError>>()
  private readonly backoff = new Map<string, Backoff>()
  private readonly transports = new Map<string, TmuxTransport>()
  private closed = false
  readonly sockets: ReadonlyArray<string>
  readonly hosts: ReadonlyArray<TmuxHost>

  constructor(
    sockets: ReadonlyArray<string>,
    private readonly settings: RegistrySettings
  ) {
    this.sockets = [...new Set(sockets.map((s) => resolvePath(s)))]
    for (const socket of this.sockets) this.transports.set(socket, localTransport(settings.tmuxPath, socket))
    this.hosts = settings.hosts ?? []
    const ssh = {
      sshPath: "ssh",
      sshConfig: null,
      ...settings.ssh,
      connectTimeoutMs: settings.commandTimeoutMs
    }
    for (const host of this.hosts) this.transports.set(hostKey(host.spec), sshTransport(host, ssh))
  }

  /** The live server at `socket`, (re)discovering it; `tmux_unavailable` when none answers. */
  server(socket: string): Effect.Effect<TmuxServer, TermPilotError> {
    const known = this.servers.get(socket)
    if (known?.alive === true) return Effect.succeed(known)
    if (known !== undefined) this.servers.delete(socket)
    if (this.closed) return Effect.fail(fail("tmux_unavailable", "TermPilot is shutting down."))
    const transport = this.transports.get(socket) ?? localTransport(this.settings.tmuxPath, socket)
    return transport.host === null ? this.open(socket, transport) : this.openHost(socket, transport)
  }

  private open(key: string, transport: TmuxTransport): Effect.Effect<TmuxServer, TermPilotError> {
    const inflight = this.opening.get(key)
    if (inflight !== undefined) return Deferred.await(inflight)
    const done = Deferred.makeUnsafe<TmuxServer, TermPilotError>()
    this.opening.set(key, done)
    return TmuxServer.open(transport, this.settings).pipe(
      Effect.exit,
      Effect.flatMap((exit) => this.settle(key, done, exit))
    )
  }

  private settle(
    key: string,
    done: Deferred.Deferred<TmuxServer, TermPilotError>,
    exit: Exit.Exit<TmuxServer, TermPilotError>
  ): Effect.Effect<TmuxServer, TermPilotError> {
    return Effect.gen({ self: this }, function* () {
      this.opening.delete(key)
      if (Exit.isSuccess(exit)) {
        if (this.closed) yield* Effect.promise(() => exit.value.close())
        else this.servers.set(key, exit.value)
      }
      yield* Deferred.done(done, exit)
      return yield* exit
    })
  }

  /**
   * A host's server: its opening runs on its own (bounded by its own timeouts), so a caller waits
   * at most the command timeout for it; a failure is kept for the backoff and answered at once.
   */
  private openHost(key: string, transport: TmuxTransport): Effect.Effect<TmuxServer, TermPilotError> {
    const host = transport.host!.spec
    const waiting = this.backoff.get(key)
    if (waiting !== undefined && Date.now() < waiting.retryAt) return Effect.fail(waiting.error)
    let inflight = this.opening.get(key)
    if (inflight === undefined) {
      const done = Deferred.makeUnsafe<TmuxServer, TermPilotError>()
      inflight = done
      this.opening.set(key, done)
      Effect.runFork(
        TmuxServer.open(transport, this.settings).pipe(
          Effect.exit,
          Effect.tap((exit) =>
            Effect.sync(() => {
              if (Exit.isSuccess(exit)) this.backoff.delete(key)
              else {
                const error = Option.getOrElse(Cause.findErrorOption(exit.cause), () =>
                  fail("tmux_unavailable", `The host ${host} did not answer.`)
                )
                const delay = isNoServer(error)
                  ? BACKOFF_FIRST_MS
                  : Math.min(BACKOFF_MAX_MS, (waiting?.delay ?? BACKOFF_FIRST_MS / 2) * 2)
                this.backoff.set(key, { retryAt: Date.now() + delay, delay, error })
              }
            })
          ),
          Effect.flatMap((exit) => this.settle(key, done, exit)),
          Effect.ignore
        )
      )
    }
    const failedBefore = waiting?.error
    return Deferred.await(inflight).pipe(
      Effect.timeoutOrElse({
        duration: Duration.millis(
          failedBefore === undefined
            ? this.settings.commandTimeoutMs
            : Math.min(this.settings.commandTimeoutMs, RETRY_GRACE_MS)
        ),
        orElse: () =>
          Effect.fail(
            failedBefore ?? fail("tmux_unavailable", `The host ${host} did not answer over ssh in time.`)
          )
      })
    )
  }

  /**
   * Every configured socket's live server, in configuration order, then every host's; absent ones
   * are skipped. A socket with no file and no server known is skipped before any attempt (no error
   * is built for it: most calls list every socket, and most configured sockets of a person have no
   * server).
   */
  get live(): Effect.Effect<ReadonlyArray<TmuxServer>> {
    return Effect.map(this.survey, (s) => s.servers)
  }

  /** The live servers, and the configured hosts that did not answer (a host with no tmux server is neither). */
  get survey(): Effect.Effect<{
    readonly servers: ReadonlyArray<TmuxServer>
    readonly unavailable: ReadonlyArray<HostUnavailable>
  }> {
    const candidates = [
      ...this.sockets.filter((s) => this.servers.get(s)?.alive === true || existsSync(s)),
      ...this.hosts.map((h) => hostKey(h.spec))
    ]
    return Effect.forEach(candidates, (key) => Effect.result(this.server(key)), {
      concurrency: "unbounded"
    }).pipe(
      Effect.map((found) => {
        const servers: Array<TmuxServer> = []
        const unavailable: Array<HostUnavailable> = []
        found.forEach((result, i) => {
          if (Result.isSuccess(result)) servers.push(result.success)
          else {
            const transport = this.transports.get(candidates[i]!)
            if (transport?.host != null && !isNoServer(result.failure))
              unavailable.push({ host: transport.host.spec, error: result.failure })
          }
        })
        return { servers, unavailable }
      })
    )
  }

  /** The server and pane an exact id names; nothing else resolves. */
  resolve(sessionId: string): Effect.Effect<ResolvedPane, TermPilotError> {
    const id = parsePaneId(sessionId)
    if (id === null) return Effect.fail(sessionNotFound(sessionId))
    const key = id.host === undefined ? id.socket : hostKey(id.host)
    const configured =
      id.host === undefined
        ? this.sockets.includes(id.socket)
        : id.socket === "default" && this.hosts.some((h) => h.spec === id.host)
    if (!configured) return Effect.fail(sessionNotFound(sessionId))
    return this.server(key).pipe(
      Effect.mapError((e) =>
        fail(
          "tmux_unavailable",
          `Session '${sessionId}' is on a tmux server that does not answer: ${e.message}`
        )
      ),
      Effect.flatMap((server) =>
        sameServer(server.identity, id)
          ? Effect.succeed({ server, pane: id.pane, id })
          : Effect.fail(sessionNotFound(sessionId))
      )
    )
  }

  close(): Promise<void> {
    this.closed = true
    const all = [...this.servers.values()]
    this.servers.clear()
    return Promise.all(all.map((s) => s.close())).then(() => undefined)
  }
}
