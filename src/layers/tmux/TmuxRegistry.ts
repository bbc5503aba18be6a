/**
 * TmuxRegistry — the configured tmux sockets and the server living behind each, rediscovered on
 * every call: a socket with no server contributes nothing, a server that appears later is picked
 * up, one that died is dropped (its ids are `tmux_unavailable` while nothing answers there, and
 * `session_not_found` once another server life answers on that socket). Ids resolve strictly.
 */
import { existsSync } from "node:fs"
import { resolve as resolvePath } from "node:path"
import { Deferred, Effect, Exit, FiberId } from "effect"
import { parsePaneId, sameServer, type TmuxPaneId } from "../../domain/tmux/TmuxId.js"
import { fail, sessionNotFound, type TermPilotError } from "../../services/Errors.js"
import { type ServerSettings, TmuxServer } from "./TmuxServer.js"

export interface ResolvedPane {
  readonly server: TmuxServer
  readonly pane: number
  readonly id: TmuxPaneId
}

export class TmuxRegistry {
  private readonly servers = new Map<string, TmuxServer>()
  private readonly opening = new Map<string, Deferred.Deferred<TmuxServer, TermPilotError>>()
  private closed = false
  readonly sockets: ReadonlyArray<string>

  constructor(
    sockets: ReadonlyArray<string>,
    private readonly settings: ServerSettings
  ) {
    this.sockets = [...new Set(sockets.map((s) => resolvePath(s)))]
  }

  /** The live server at `socket`, (re)discovering it; `tmux_unavailable` when none answers. */
  server(socket: string): Effect.Effect<TmuxServer, TermPilotError> {
    const known = this.servers.get(socket)
    if (known?.alive === true) return Effect.succeed(known)
    if (known !== undefined) this.servers.delete(socket)
    if (this.closed) return Effect.fail(fail("tmux_unavailable", "TermPilot is shutting down."))
    const inflight = this.opening.get(socket)
    if (inflight !== undefined) return Deferred.await(inflight)
    const done = Deferred.unsafeMake<TmuxServer, TermPilotError>(FiberId.none)
    this.opening.set(socket, done)
    return TmuxServer.open(socket, this.settings).pipe(
      Effect.exit,
      Effect.flatMap((exit) =>
        Effect.gen(this, function* () {
          this.opening.delete(socket)
          if (Exit.isSuccess(exit)) {
            if (this.closed) yield* Effect.promise(() => exit.value.close())
            else this.servers.set(socket, exit.value)
          }
          yield* Deferred.done(done, exit)
          return yield* exit
        })
      )
    )
  }

  /**
   * Every configured socket's live server, in configuration order; absent ones are skipped. A
   * socket with no file and no server known is skipped before any attempt (no error is built for
   * it: most calls list every socket, and most configured sockets of a person have no server).
   */
  get live(): Effect.Effect<ReadonlyArray<TmuxServer>> {
    const candidates = this.sockets.filter((s) => this.servers.get(s)?.alive === true || existsSync(s))
    return Effect.forEach(candidates, (socket) => Effect.option(this.server(socket)), {
      concurrency: "unbounded"
    }).pipe(Effect.map((found) => found.flatMap((o) => (o._tag === "Some" ? [o.value] : []))))
  }

  /** The server and pane an exact id names; nothing else resolves. */
  resolve(sessionId: string): Effect.Effect<ResolvedPane, TermPilotError> {
    const id = parsePaneId(sessionId)
    if (id === null || !this.sockets.includes(id.socket)) return Effect.fail(sessionNotFound(sessionId))
    return this.server(id.socket).pipe(
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
