/**
 * BackendLive — the terminal backends the MCP tools run on: iTerm2 (over one Iterm2Connection) and
 * tmux, chosen by the `backends` setting, routed into the one Terminal (restricted by the
 * configured session policy) and PromptTracker, with the backend-independent CommandRunner on top.
 */
import { existsSync } from "node:fs"
import { Context, Effect, Layer } from "effect"
import { fail } from "../../domain/Errors.js"
import { hasTmuxPrefix } from "../../domain/tmux/TmuxId.js"
import { AppConfig } from "../../services/AppConfig.js"
import type { CommandRunner } from "../../services/CommandRunner.js"
import { PromptTracker } from "../../services/PromptTracker.js"
import { listingOf, Terminal } from "../../services/Terminal.js"
import { Iterm2Connection } from "../backends/iterm2/ConnectionService.js"
import { type BackendPart, routedTerminal, routedTracker } from "../backends/Routing.js"
import { makeTmuxBackend } from "../backends/tmux/Backend.js"
import { withSessionPolicy } from "../config/SessionPolicyLive.js"
import { CommandRunnerLive } from "../runner/CommandRunnerLive.js"
import { type Members, onFirstUse } from "./OnFirstUse.js"

type Iterm2Services = Context.Context<Terminal | PromptTracker | Iterm2Connection>

/**
 * The iTerm2 backend (backends/iterm2/Backend.ts), imported and built in the server's scope once,
 * on its first use: a server that never sees iTerm2 never evaluates its code, ws and the protobuf
 * messages (idle RSS −5 MB on tmux; docs/benchmarks.md, "Memory, step by step").
 */
const iterm2OnFirstUse = Effect.gen(function* () {
  const scope = yield* Effect.scope
  const config = yield* AppConfig
  return yield* Effect.cached(
    Effect.promise(() => import("../backends/iterm2/Backend.js")).pipe(
      Effect.flatMap(({ Iterm2Backend }) => Layer.buildWithScope(Iterm2Backend, scope)),
      Effect.provideService(AppConfig, config)
    )
  )
})

const terminalMembers: Members<Terminal["Service"]> = {
  listSessions: "effect",
  listing: "effect",
  currentSession: "effect",
  getSession: "function",
  sessionLabels: "function",
  read: "function",
  readiness: "function",
  submit: "function",
  commandOutput: "function",
  outputLineCount: "function",
  interrupt: "function",
  sendKeys: "function",
  listCommands: "function",
  commandText: "function",
  askApproval: "function"
}

const connectionMembers: Members<Iterm2Connection["Service"]> = {
  call: "function",
  callAll: "function",
  events: "effect",
  transaction: "function",
  connectionId: "effect",
  protocolVersion: "effect"
}

/** The iTerm2 connection (for `termpilot doctor`), the one the backend uses, built on first use. */
const iterm2Connection = (load: Effect.Effect<Iterm2Services>) =>
  onFirstUse(Effect.map(load, Context.get(Iterm2Connection)), connectionMembers)

/**
 * iTerm2 as one routed part; in auto mode it is there when its API socket exists. Built at start
 * when it is there then (as before), else on the first call that reaches it.
 */
const iterm2Part = (load: Effect.Effect<Iterm2Services>) =>
  Effect.gen(function* () {
    const { iterm2, backends } = yield* AppConfig
    const present =
      backends.mode === "auto" ? Effect.sync(() => existsSync(iterm2.socketPath)) : Effect.succeed(true)
    if (yield* present) yield* load
    const terminal = Effect.map(load, Context.get(Terminal))
    const part: BackendPart = {
      name: "iterm2",
      owns: (sessionId) => !hasTmuxPrefix(sessionId),
      present,
      absence: fail(
        "iterm2_unavailable",
        `iTerm2 is not running or its Python API is off (no API socket at ${iterm2.socketPath}).`
      ),
      // `listing` is optional on a Terminal: the built one may have none, so it goes through listingOf.
      terminal: { ...onFirstUse(terminal, terminalMembers), listing: Effect.flatMap(terminal, listingOf) },
      tracker: onFirstUse(Effect.map(load, Context.get(PromptTracker)), { watch: "function" })
    }
    return part
  })

/** tmux as one routed part; in auto mode it is there when some configured socket exists or a host is configured. */
const tmuxPart = Effect.gen(function* () {
  const { tmux, backends } = yield* AppConfig
  const backend = yield* makeTmuxBackend(tmux)
  const looked =
    tmux.sockets.length === 0 ? "no socket is configured" : `looked at ${tmux.sockets.join(", ")}`
  const part: BackendPart = {
    name: "tmux",
    owns: hasTmuxPrefix,
    present:
      backends.mode === "auto"
        ? Effect.sync(
            () => (tmux.hosts ?? []).length > 0 || tmux.sockets.some((socket) => existsSync(socket))
          )
        : Effect.succeed(true),
    absence: fail("tmux_unavailable", `No tmux server is running (${looked}).`),
    terminal: backend.terminal,
    tracker: backend.tracker
  }
  return part
})

/** The enabled backends, routed, with the session policy applied once on top. */
const Routed = Layer.effectContext(
  Effect.gen(function* () {
    const { settings, backends } = yield* AppConfig
    const iterm2 = yield* iterm2OnFirstUse
    const parts: Array<BackendPart> = []
    for (const name of backends.enabled) {
      if (name === "iterm2") parts.push(yield* iterm2Part(iterm2))
      if (name === "tmux") parts.push(yield* tmuxPart)
    }
    const terminal = withSessionPolicy(routedTerminal(parts), settings.policy, {
      readOnly: settings.readOnly
    })
    return Context.make(Terminal, terminal).pipe(
      Context.add(PromptTracker, routedTracker(parts)),
      Context.add(Iterm2Connection, iterm2Connection(iterm2))
    )
  })
)

/** Terminal + PromptTracker + CommandRunner (+ the iTerm2 connection itself, for `termpilot doctor`). */
export const BackendLive: Layer.Layer<
  Terminal | PromptTracker | CommandRunner | Iterm2Connection,
  never,
  AppConfig
> = CommandRunnerLive.pipe(Layer.provideMerge(Routed))
