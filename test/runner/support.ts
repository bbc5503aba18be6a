/**
 * Shared setup for the CommandRunner tests: a fresh runner over a fresh FakeTerminal world per
 * test, and a run request with the tool's defaults.
 */
import { Effect, Layer } from "effect"
import { CommandRunnerLive, makeCommandRunner } from "../../src/layers/CommandRunnerLive.js"
import { CommandRunner, type RunRequest } from "../../src/services/CommandRunner.js"
import { FakeTerminalLayer } from "../fakes/FakeTerminal.js"

/**
 * The runner as CommandRunnerLive builds it, except that it does not wait for the next prompt after
 * a command ends (most scripted event sequences here stop at CommandEnd); that wait has its own
 * tests, with the default grace (`graceWorld`).
 */
export const world = Layer.scoped(CommandRunner, makeCommandRunner({ promptGraceMs: 0 })).pipe(
  Layer.provideMerge(FakeTerminalLayer)
)

/** The runner exactly as CommandRunnerLive builds it. */
export const graceWorld = CommandRunnerLive.pipe(Layer.provideMerge(FakeTerminalLayer))

export const request = (
  sessionId: string,
  command: string,
  overrides: Partial<RunRequest> = {}
): RunRequest => ({
  sessionId,
  command,
  waitForCompletion: true,
  timeoutSeconds: 30,
  maxOutputChars: 32768,
  ...overrides
})

/** Run `self` in a fresh world (runner + fake backend), closed when it ends. */
export const inWorld = <A, E>(self: Effect.Effect<A, E, Layer.Layer.Success<typeof world>>) =>
  Effect.provide(self, world)
