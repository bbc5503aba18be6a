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
import { Terminal } from "../../services/Terminal.js"
import { Iterm2ConnectionLive } from "../backends/iterm2/Connection.js"
import type { Iterm2Connection } from "../backends/iterm2/ConnectionService.js"
import { Iterm2PromptTrackerLive } from "../backends/iterm2/PromptTracker.js"
import { Iterm2TerminalLive } from "../backends/iterm2/Terminal.js"
import { type BackendPart, routedTerminal, routedTracker } from "../backends/Routing.js"
import { makeTmuxBackend } from "../backends/tmux/Backend.js"
import { withSessionPolicy } from "../config/SessionPolicyLive.js"
import { CommandRunnerLive } from "../runner/CommandRunnerLive.js"

const Iterm2Services = Layer.merge(Iterm2TerminalLive, Iterm2PromptTrackerLive)

/** iTerm2 as one routed part; in auto mode it is there when its API socket exists. */
const iterm2Part = Effect.gen(function* () {
  const { iterm2, backends } = yield* AppConfig
  const services = yield* Layer.build(Iterm2Services)
  const part: BackendPart = {
    name: "iterm2",
    owns: (sessionId) => !hasTmuxPrefix(sessionId),
    present:
      backends.mode === "auto" ? Effect.sync(() => existsSync(iterm2.socketPath)) : Effect.succeed(true),
    absence: fail(
      "iterm2_unavailable",
      `iTerm2 is not running or its Python API is off (no API socket at ${iterm2.socketPath}).`
    ),
    terminal: Context.get(services, Terminal),
    tracker: Context.get(services, PromptTracker)
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
    const parts: Array<BackendPart> = []
    for (const name of backends.enabled) {
      if (name === "iterm2") parts.push(yield* iterm2Part)
      if (name === "tmux") parts.push(yield* tmuxPart)
    }
    const terminal = withSessionPolicy(routedTerminal(parts), settings.policy, {
      readOnly: settings.readOnly
    })
    return Context.make(Terminal, terminal).pipe(Context.add(PromptTracker, routedTracker(parts)))
  })
)

/** Terminal + PromptTracker + CommandRunner (+ the iTerm2 connection itself, for `termpilot doctor`). */
export const BackendLive: Layer.Layer<
  Terminal | PromptTracker | CommandRunner | Iterm2Connection,
  never,
  AppConfig
> = CommandRunnerLive.pipe(Layer.provideMerge(Routed), Layer.provideMerge(Iterm2ConnectionLive))
