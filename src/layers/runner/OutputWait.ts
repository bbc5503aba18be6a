/**
 * OutputWait — wait_for_output's wait on one session, backend-independent, read-only: it looks at
 * the session's new rows about ten times a second (Terminal.read from the last look's cursor) and
 * listens to its shell-integration events (PromptTracker), until a new line matches the pattern,
 * nothing changed for the quiet time, the command running there ended (its D mark, with the exit
 * status), the timeout passed or the client cancelled; then one read from the starting cursor
 * gives the bounded tail of all it saw and the new cursor. It reports progress like the runner's
 * waits and never sends anything to a terminal.
 */
import { Clock, Duration, Effect, Fiber, Option, Queue } from "effect"
import type { PromptEvent } from "../../domain/PromptEvent.js"
import type { CursorPosition } from "../../domain/ReadCursor.js"
import type { ReadBounds } from "../../domain/TextBounds.js"
import { CallControl } from "../../services/CallControl.js"
import { callCancelled, PROGRESS_INTERVAL_MS } from "../../services/CallWaits.js"
import type { OutputWaitEnd, OutputWaitReason, OutputWaitSpec } from "../../services/CommandRunner.js"
import { deadlineExceeded, fail, type TermPilotError } from "../../services/Errors.js"
import type { Backend } from "./SendPhase.js"

/** How often the session is looked at. */
export const POLL_INTERVAL_MS = 100
/** What one look reads: the read_terminal maximum (a faster burst between two looks is partly unseen). */
export const POLL_BOUNDS: ReadBounds = { maxLines: 2000, maxChars: 131_072 }
/** Characters matched between two yields to other fibers, so a long look cannot hold the server. */
const MATCH_SLICE_CHARS = 16_384

type Wake =
  | { readonly _tag: "Tick" }
  | { readonly _tag: "Ended"; readonly exitCode: number | null }
  | { readonly _tag: "Cancelled" }
  | { readonly _tag: "Lost"; readonly error: TermPilotError }

const sameCursor = (a: CursorPosition, b: CursorPosition): boolean => a.row === b.row && a.anchor === b.anchor

/** The next event that ends the wait: a command's end, the session's end, or the backend lost. */
const nextEnd = (events: Queue.Dequeue<PromptEvent>): Effect.Effect<Wake> =>
  Effect.flatMap(Queue.take(events), (event): Effect.Effect<Wake> => {
    if (event._tag === "CommandEnd") return Effect.succeed({ _tag: "Ended", exitCode: event.exitCode })
    // The shell the command ran in went away: it is not running there any more, its status unknown.
    if (event._tag === "ShellGone") return Effect.succeed({ _tag: "Ended", exitCode: null })
    if (event._tag === "Lost") {
      return Effect.succeed({ _tag: "Lost", error: fail(event.code, event.message) })
    }
    return nextEnd(events)
  })

/** The wait over the backend the runner was built on (CommandRunner.waitForOutput). */
export const waitForOutput = (
  { terminal, tracker }: Backend,
  spec: OutputWaitSpec
): Effect.Effect<OutputWaitEnd, TermPilotError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const startedMs = yield* Clock.currentTimeMillis
      /** One request to the backend, bounded by the call deadline. */
      const bounded = <A, R>(effect: Effect.Effect<A, TermPilotError, R>) =>
        Effect.timeoutOrElse(effect, {
          duration: Duration.millis(spec.readTimeoutMs),
          orElse: () => Effect.fail(deadlineExceeded(spec.readTimeoutMs, "nothing was sent"))
        })
      const look = (bounds: ReadBounds, since: CursorPosition | undefined) =>
        bounded(
          since === undefined
            ? terminal.read(spec.sessionId, bounds)
            : terminal.read(spec.sessionId, bounds, since)
        )

      // Listen first, so a command that ends while the wait starts is not missed.
      const events = yield* bounded(tracker.watch(spec.sessionId)).pipe(
        Effect.map(Option.some),
        Effect.catchIf(
          (error) => error.code === "shell_integration_required",
          () => Effect.succeed(Option.none<Queue.Dequeue<PromptEvent>>())
        )
      )
      const start = spec.since ?? (yield* look({ maxLines: 1, maxChars: 1 }, undefined)).cursor

      let matchedLine: string | null = null
      /** Match the lines of one look; yields between slices so a long look cannot hold the server. */
      const matchLines = (text: string) =>
        Effect.gen(function* () {
          if (spec.matcher === null || text === "") return
          let sliced = 0
          for (const line of spec.clean(text).split("\n")) {
            if (spec.matcher.test(line)) {
              matchedLine = line
              return
            }
            sliced += line.length
            if (sliced >= MATCH_SLICE_CHARS) {
              sliced = 0
              yield* Effect.yieldNow
            }
          }
        })

      let cursor = start
      /** The text of the last look from `cursor`, once one was taken from there (quiet baseline). */
      let atCursor: string | undefined
      let lastChangeMs = startedMs
      /** One look from the last cursor: matches new lines, tracks quiet. `first`: a `since` look. */
      const poll = (first: boolean) =>
        Effect.gen(function* () {
          const seen = yield* look(POLL_BOUNDS, cursor)
          const moved = !sameCursor(seen.cursor, cursor)
          const changed = moved || (atCursor !== undefined && seen.text !== atCursor)
          if (changed || first) yield* matchLines(seen.text)
          if (changed) lastChangeMs = yield* Clock.currentTimeMillis
          atCursor = moved ? undefined : seen.text
          cursor = seen.cursor
        })

      const control = yield* Effect.serviceOption(CallControl)
      if (Option.isSome(control) && control.value.wantsProgress) {
        const progress = control.value.progress
        const report = Effect.gen(function* () {
          const elapsedMs = (yield* Clock.currentTimeMillis) - startedMs
          const seconds = Math.round(elapsedMs / 1000)
          yield* Effect.uninterruptible(
            progress({
              requestId: spec.sessionId,
              elapsedMs,
              outputLines: null,
              message: `session ${spec.sessionId}: waiting for output, ${seconds} s so far`
            })
          )
        })
        const ticker = yield* Effect.forkChild(
          Effect.forever(Effect.andThen(Effect.sleep(Duration.millis(PROGRESS_INTERVAL_MS)), report))
        )
        yield* Effect.addFinalizer(() => Fiber.interrupt(ticker))
      }

      const deadlineMs = startedMs + spec.timeoutMs
      const ends = Option.match(events, { onNone: () => Effect.never, onSome: nextEnd })
      let reason: OutputWaitReason = "timed_out"
      let exitCode: number | null = null
      yield* poll(spec.since !== undefined)
      for (;;) {
        if (matchedLine !== null) {
          reason = "matched"
          break
        }
        const now = yield* Clock.currentTimeMillis
        if (spec.quietMs !== null && now - lastChangeMs >= spec.quietMs) {
          reason = "quiet"
          break
        }
        if (now >= deadlineMs) break
        const tick: Wake = { _tag: "Tick" }
        const cancelled: Wake = { _tag: "Cancelled" }
        const wake = yield* Effect.raceAll([
          Effect.as(Effect.sleep(Duration.millis(Math.min(POLL_INTERVAL_MS, deadlineMs - now))), tick),
          ends,
          Effect.as(callCancelled, cancelled)
        ])
        if (wake._tag === "Cancelled") {
          reason = "cancelled"
          break
        }
        if (wake._tag === "Lost") return yield* Effect.fail(wake.error)
        yield* poll(false)
        if (wake._tag === "Ended" && matchedLine === null) {
          reason = "command_ended"
          exitCode = wake.exitCode
          break
        }
      }
      const snapshot = yield* look(spec.bounds, start)
      return {
        reason,
        matchedLine,
        exitCode,
        watchedCommands: Option.isSome(events),
        snapshot,
        waitedMs: (yield* Clock.currentTimeMillis) - startedMs
      }
    })
  )
