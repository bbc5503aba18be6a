/**
 * BackendLive — the terminal backend the MCP tools run on: iTerm2's Terminal (restricted by the
 * configured session policy) and PromptTracker over one Iterm2Connection, with the
 * backend-independent CommandRunner on top.
 */
import { Effect, Layer } from "effect"
import { AppConfig } from "../services/AppConfig.js"
import type { CommandRunner } from "../services/CommandRunner.js"
import type { Iterm2Connection } from "../services/Iterm2Connection.js"
import { Terminal } from "../services/Terminal.js"
import { CommandRunnerLive } from "./CommandRunnerLive.js"
import { Iterm2ConnectionLive } from "./iterm2/Iterm2ConnectionLive.js"
import { Iterm2PromptTrackerLive } from "./iterm2-backend/Iterm2PromptTrackerLive.js"
import { Iterm2TerminalLive } from "./iterm2-backend/Iterm2TerminalLive.js"
import { withSessionPolicy } from "./SessionPolicyLive.js"

/** iTerm2's Terminal as the tools see it: hidden sessions absent, read-only mode honoured. */
const PolicyTerminal = Layer.effect(
  Terminal,
  Effect.gen(function* () {
    const terminal = yield* Terminal
    const { settings } = yield* AppConfig
    return withSessionPolicy(terminal, settings.policy, { readOnly: settings.readOnly })
  })
).pipe(Layer.provide(Iterm2TerminalLive))

/** Terminal + CommandRunner (+ the connection itself, for `termpilot doctor`) over iTerm2. */
export const BackendLive: Layer.Layer<Terminal | CommandRunner | Iterm2Connection, never, AppConfig> =
  CommandRunnerLive.pipe(
    Layer.provideMerge(Layer.merge(PolicyTerminal, Iterm2PromptTrackerLive)),
    Layer.provideMerge(Iterm2ConnectionLive)
  )
