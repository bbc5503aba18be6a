/**
 * CallBounds — how the runner holds a phase that ends in a send (run_command's watch + submit,
 * interrupt_command's check + ETX) to the call: its deadline and the client's cancellation. The
 * phase runs in its own uninterruptible fiber whose interruptible parts all come before anything
 * may leave; past the deadline or on cancel it is interrupted and its exit awaited, so an
 * interrupted phase sent nothing and a send already under way finishes and stands.
 */
import { Duration, Effect, type Exit, Fiber, Option } from "effect"
import { CallControl } from "../../services/CallControl.js"

/** Why a bounded phase was stopped. */
export type StopReason = "deadline" | "cancelled"

export interface BoundedExit<A, E> {
  /** The phase's own exit (a success when a send under way finished after the stop). */
  readonly exit: Exit.Exit<A, E>
  /** Set when the phase was interrupted (at the deadline or on cancel), null when it ended first. */
  readonly stopped: StopReason | null
}

/** Completes when the client cancelled the current call; never without a CallControl. */
export const callCancelled: Effect.Effect<void> = Effect.flatMap(
  Effect.serviceOption(CallControl),
  Option.match({ onNone: () => Effect.never, onSome: (control) => control.cancelled })
)

/** Run `phase` bounded by `deadlineMs` and the call's cancellation (see the module docblock). */
export const boundedByCall = <A, E, R>(
  phase: Effect.Effect<A, E, R>,
  deadlineMs: number
): Effect.Effect<BoundedExit<A, E>, never, R> =>
  Effect.uninterruptible(
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(phase)
      const first = yield* Effect.interruptible(
        Effect.raceAll([
          Effect.map(Fiber.await(fiber), (exit) => ({ exit, stopped: null })),
          Effect.as(Effect.sleep(Duration.millis(deadlineMs)), { stopped: "deadline" as const }),
          Effect.as(callCancelled, { stopped: "cancelled" as const })
        ])
      )
      if (first.stopped === null) return { exit: first.exit, stopped: null }
      return { exit: yield* Fiber.interrupt(fiber), stopped: first.stopped }
    })
  )
