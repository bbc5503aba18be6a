/**
 * BackendLive — TEMPORARY stand-in for the iTerm2 backend (Terminal + CommandRunner) while the
 * real layers are written. Every call fails with `iterm2_unavailable`. Replace this module's
 * export with the real composition (Iterm2TerminalLive + CommandRunnerLive); nothing else changes.
 */
import { Effect, Layer } from "effect"
import type { AppConfig } from "../services/AppConfig.js"
import { CommandRunner } from "../services/CommandRunner.js"
import { fail } from "../services/Errors.js"
import { Terminal } from "../services/Terminal.js"

const unavailable = Effect.fail(fail("iterm2_unavailable", "iTerm2 backend not wired yet"))

export const BackendLive: Layer.Layer<Terminal | CommandRunner, never, AppConfig> = Layer.merge(
  Layer.succeed(Terminal, {
    listSessions: unavailable,
    currentSession: unavailable,
    getSession: () => unavailable,
    read: () => unavailable,
    readiness: () => unavailable,
    submit: () => unavailable,
    commandOutput: () => unavailable
  }),
  Layer.succeed(CommandRunner, { run: () => unavailable, result: () => unavailable })
)
