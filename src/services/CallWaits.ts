/**
 * CallWaits — how a wait inside one tool call honours the call's CallControl: every wait on a
 * command (run_command's wait for completion, get_command_result's wait_seconds,
 * interrupt_command's wait after the ETX) and on the person's answer to an approval dialog is
 * bounded by its timeout, cut short at once when the client cancels the call, and, when the client
 * asked for progress, reports about once a second (first after one interval) how long it has
 * waited and how many output lines the command wrote so far. The ticker is stopped, and a report
 * being sent awaited, before the wait returns, so no report follows the call's answer. Over the
 * CallControl contract only, so the runner and the approval gate share it.
 */
import { Clock, Duration, Effect, Fiber, Option } from "effect"
import { CallControl } from "./CallControl.js"
import type { TermPilotError } from "./Errors.js"

/** How often a wait reports progress. */
export const PROGRESS_INTERVAL_MS = 1000

/** Completes when the client cancelled the current call; never without a CallControl. */
export const callCancelled: Effect.Effect<void> = Effect.flatMap(
  Effect.serviceOption(CallControl),
  Option.match({ onNone: () => Effect.never, onSome: (control) => control.cancelled })
)

export type WaitEnd<A> =
  | { readonly _tag: "Done"; readonly value: A }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Cancelled" }

export interface WaitSpec<A> {
  /** The request waited on (named in each report). */
  readonly requestId: string
  /** Completes with what the wait is for. */
  readonly until: Effect.Effect<A>
  readonly timeoutMs: number
  /** The command's output lines so far, null when unknown; a failure or a slow answer reports null. */
  readonly outputLines: Effect.Effect<number | null, TermPilotError>
  /** What the reports say is waited for (default: the command). */
  readonly awaiting?: "command" | "approval"
}

const timedOut = { _tag: "TimedOut" } as const
const cancelled = { _tag: "Cancelled" } as const

export const waitForCommand = <A>(spec: WaitSpec<A>): Effect.Effect<WaitEnd<A>> =>
  Effect.gen(function* () {
    const startedMs = yield* Clock.currentTimeMillis
    const wait = Effect.race(
      spec.until.pipe(
        Effect.map((value): WaitEnd<A> => ({ _tag: "Done", value })),
        Effect.timeoutOrElse({
          duration: Duration.millis(spec.timeoutMs),
          orElse: () => Effect.succeed<WaitEnd<A>>(timedOut)
        })
      ),
      Effect.as(callCancelled, cancelled)
    )
    const control = yield* Effect.serviceOption(CallControl)
    if (Option.isNone(control) || !control.value.wantsProgress) return yield* wait
    const progress = control.value.progress
    const report = Effect.gen(function* () {
      const outputLines = yield* spec.outputLines.pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(PROGRESS_INTERVAL_MS),
          orElse: () => Effect.succeed(null)
        }),
        Effect.orElseSucceed(() => null)
      )
      const elapsedMs = (yield* Clock.currentTimeMillis) - startedMs
      const awaiting = spec.awaiting ?? "command"
      yield* Effect.uninterruptible(progress({ requestId: spec.requestId, elapsedMs, outputLines, awaiting }))
    })
    const ticker = yield* Effect.forkChild(
      Effect.forever(Effect.andThen(Effect.sleep(Duration.millis(PROGRESS_INTERVAL_MS)), report))
    )
    return yield* Effect.ensuring(wait, Fiber.interrupt(ticker))
  })
