/**
 * Backend — TermPilot's tmux backend as the routing layer consumes it: a Terminal and a
 * PromptTracker over every configured tmux socket, plus a status for `termpilot doctor`. Servers
 * are (re)discovered on each call; a socket with no server contributes nothing and no error.
 * Every control client it starts ends when the Scope closes.
 */
import { Effect, type Scope } from "effect"
import type { TmuxSettings } from "../../../services/AppConfig.js"
import type { PromptTracker } from "../../../services/PromptTracker.js"
import type { Terminal } from "../../../services/Terminal.js"
import { makeTmuxPromptTracker } from "./PromptTracker.js"
import { TmuxRegistry } from "./Registry.js"
import { makeTmuxTerminal } from "./Terminal.js"

/** The tmux settings AppConfig resolves (sockets, tmux binary, own pane, command timeout). */
export type { TmuxSettings }

/** One configured socket as seen now. */
export interface TmuxServerStatus {
  /** The socket path (`default`: a host's default server). */
  readonly socket: string
  /** The host reached over ssh (`[user@]host[:port]`); null for a local socket. */
  readonly host: string | null
  readonly running: boolean
  /** `#{pid}.#{start_time}` of the server answering there. */
  readonly pid: number | null
  readonly startTime: number | null
  readonly version: string | null
  /** Control clients TermPilot has attached there (one per tmux session). */
  readonly controlClients: number
  /** Why nothing answers, when it does not. */
  readonly error: string | null
}

export interface TmuxStatus {
  readonly servers: ReadonlyArray<TmuxServerStatus>
}

export interface TmuxBackend {
  readonly terminal: Terminal["Service"]
  readonly tracker: PromptTracker["Service"]
  readonly status: Effect.Effect<TmuxStatus>
}

export const makeTmuxBackend = (settings: TmuxSettings): Effect.Effect<TmuxBackend, never, Scope.Scope> =>
  Effect.gen(function* () {
    const registry = new TmuxRegistry(settings.sockets, {
      tmuxPath: settings.tmuxPath,
      commandTimeoutMs: settings.commandTimeoutMs,
      hosts: settings.hosts ?? [],
      ssh: { sshPath: settings.sshPath ?? "ssh", sshConfig: settings.sshConfig ?? null }
    })
    yield* Effect.addFinalizer(() => Effect.promise(() => registry.close()))
    const status = Effect.forEach(
      [...registry.sockets, ...registry.hosts.map((h) => `ssh:${h.spec}`)],
      (socket) =>
        Effect.match(registry.server(socket), {
          onFailure: (e): TmuxServerStatus => ({
            socket: socket.startsWith("ssh:") ? "default" : socket,
            host: socket.startsWith("ssh:") ? socket.slice(4) : null,
            running: false,
            pid: null,
            startTime: null,
            version: null,
            controlClients: 0,
            error: e.message
          }),
          onSuccess: (s): TmuxServerStatus => ({
            socket: socket.startsWith("ssh:") ? "default" : socket,
            host: s.transport.host?.spec ?? null,
            running: true,
            pid: s.identity.pid,
            startTime: s.identity.startTime,
            version: s.version,
            controlClients: [...s.clients.values()].filter((c) => c.isOpen).length,
            error: null
          })
        }),
      { concurrency: "unbounded" }
    ).pipe(Effect.map((servers) => ({ servers })))
    return {
      terminal: makeTmuxTerminal(registry, settings.ownPane),
      tracker: makeTmuxPromptTracker(registry),
      status
    }
  })
