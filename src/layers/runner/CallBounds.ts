/**
 * CallBounds — how the runner holds a phase that ends in a send (run_command's watch + submit,
 * interrupt_command's check + ETX) to the call: its deadline and the client's cancellation. The
 * phase runs in its own uninterruptible fiber whose interruptible parts all come before anything
 * may leave; past the deadline or on cancel it is interrupted and its exit awaited, so an
 * interrupted phase sent nothing and a send already under way finishes and stands.
 */
import { Duration, Effect, type Exit, Fiber } from "effect"
import { callCancelled } from "../../services/CallWaits.js"

/** Why a bounded phase was stopped. */
export type StopReason = "deadline" | "cancelled"

export interface BoundedExit<A, E> {
  /** The phase's own exit (a success when a send under way finished after the stop). */
  readonly exit: Exit.Exit<A, E>
  /** Set when the phase was interrupted (at the deadline or on cancel), null when it ended first. */
  readonly stopped: StopReason | null
}

/** Run `phase` bounded by `deadlineMs` and the call's cancellation (see the module docblock). */
export const boundedByCall = <A, E, R>(
  phase: Effect.Effect<A, E, R>,
  deadlineMs: number
): Effect.Effect<BoundedExit<A, E>, never, R> =>
  Effect.uninterruptible(
    Effect.gen(function* () {
      // Effect 4 forks interruptible by default (Effect 3 inherited the parent's flags): the
      // phase's fiber must be uninterruptible itself, so only its own interruptible parts stop.
      // It starts at once, before the race below looks at the deadline and the cancel (as in
      // Effect 3, where it was scheduled ahead of the racers).
      const fiber = yield* Effect.forkChild(phase, { uninterruptible: true, startImmediately: true })
      const first = yield* Effect.interruptible(
        Effect.raceAll([
          Effect.map(Fiber.await(fiber), (exit) => ({ exit, stopped: null })),
          Effect.as(Effect.sleep(Duration.millis(deadlineMs)), { stopped: "deadline" as const }),
          Effect.as(callCancelled, { stopped: "cancelled" as const })
        ])
      )
      if (first.stopped === null) return { exit: first.exit, stopped: null }
      // Fiber.interrupt waits for the fiber to end (a send under way finishes); then its exit.
      yield* Fiber.interrupt(fiber)
      return { exit: yield* Fiber.await(fiber), stopped: first.stopped }
    })
  )
