/**
 * BackendLive — the terminal backend the MCP tools run on: iTerm2's Terminal and PromptTracker
 * over one Iterm2Connection, with the backend-independent CommandRunner on top.
 */
import { Layer } from "effect"
import type { AppConfig } from "../services/AppConfig.js"
import type { CommandRunner } from "../services/CommandRunner.js"
import type { Iterm2Connection } from "../services/Iterm2Connection.js"
import type { Terminal } from "../services/Terminal.js"
import { CommandRunnerLive } from "./CommandRunnerLive.js"
import { Iterm2ConnectionLive } from "./iterm2/Iterm2ConnectionLive.js"
import { Iterm2PromptTrackerLive } from "./iterm2-backend/Iterm2PromptTrackerLive.js"
import { Iterm2TerminalLive } from "./iterm2-backend/Iterm2TerminalLive.js"

/** Terminal + CommandRunner (+ the connection itself, for `termpilot doctor`) over iTerm2. */
export const BackendLive: Layer.Layer<Terminal | CommandRunner | Iterm2Connection, never, AppConfig> =
  CommandRunnerLive.pipe(
    Layer.provideMerge(Layer.merge(Iterm2TerminalLive, Iterm2PromptTrackerLive)),
    Layer.provideMerge(Iterm2ConnectionLive)
  )
