/**
 * Shared setup for the CommandRunner tests: a fresh runner over a fresh FakeTerminal world per
 * test, a run request with the tool's defaults, and a fake CallControl (cancel, progress).
 */
import { Deferred, Effect, Layer, Ref } from "effect"
import { CommandRunnerLive, makeCommandRunner } from "../../src/layers/runner/CommandRunnerLive.js"
import { CallControl, type ProgressReport } from "../../src/services/CallControl.js"
import { CommandRunner, type RunRequest } from "../../src/services/CommandRunner.js"
import { FakeTerminalLayer } from "../fakes/FakeTerminal.js"

/**
 * The runner as CommandRunnerLive builds it, except that it does not wait for the next prompt after
 * a command ends (most scripted event sequences here stop at CommandEnd); that wait has its own
 * tests, with the default grace (`graceWorld`).
 */
export const world = Layer.effect(CommandRunner, makeCommandRunner({ promptGraceMs: 0 })).pipe(
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
  maxOutputLines: 2000,
  ...overrides
})

/** Run `self` in a fresh world (runner + fake backend), closed when it ends. */
export const inWorld = <A, E>(self: Effect.Effect<A, E, Layer.Success<typeof world>>) =>
  Effect.provide(self, world)

/** A CallControl for one call, with its driver: cancel it, see the progress it was sent. */
export interface FakeCall {
  readonly control: CallControl["Service"]
  readonly cancel: Effect.Effect<void>
  readonly reports: Effect.Effect<ReadonlyArray<ProgressReport>>
}

/**
 * A call that asked for progress (unless `wantsProgress` is false). `beforeReport`, when given, runs
 * inside each progress send before it is recorded (a notification still being written).
 */
export const makeCall = (options: { wantsProgress?: boolean; beforeReport?: Effect.Effect<void> } = {}) =>
  Effect.gen(function* () {
    const cancelled = yield* Deferred.make<void>()
    const reports = yield* Ref.make<ReadonlyArray<ProgressReport>>([])
    const control = CallControl.of({
      cancelled: Deferred.await(cancelled),
      wantsProgress: options.wantsProgress ?? true,
      progress: (report) =>
        Effect.andThen(
          options.beforeReport ?? Effect.void,
          Ref.update(reports, (r) => [...r, report])
        )
    })
    return {
      control,
      cancel: Deferred.succeed(cancelled, undefined),
      reports: Ref.get(reports)
    } satisfies FakeCall
  })
