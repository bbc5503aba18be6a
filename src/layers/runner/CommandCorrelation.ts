/**
 * Correlation of one sent command with the session's shell-integration events: which event ends
 * the watch, and why. Pure rules (`step`) plus the loop that feeds them from the watch queue.
 * Prompt ids are compared only when both sides have one; an unknown id is never taken as proof.
 */
import { Effect, Exit, Queue } from "effect"
import type { ErrorCode } from "../../services/Errors.js"
import type { PromptEvent } from "../../services/PromptTracker.js"

/** Why the watch of a sent command ended. */
export type Outcome =
  | { readonly _tag: "Ended"; readonly exitCode: number; readonly promptId: string | null }
  | { readonly _tag: "Aborted" }
  /** The shell it ran in went away; `transportExitCode` is the exit status of what carried it (ssh). */
  | {
      readonly _tag: "ShellGone"
      readonly transportExitCode: number | null
      readonly promptId: string | null
    }
  | { readonly _tag: "Foreign"; readonly detail: string }
  | { readonly _tag: "SessionEnded" }
  | { readonly _tag: "Lost"; readonly message: string; readonly code: ErrorCode }

export interface WatchState {
  /** The prompt the command was typed at (Submission.promptId). */
  readonly ours: string | null
  /** Whether a CommandStart attributed to our command was seen. */
  readonly started: boolean
}

const same = (a: string | null, b: string | null): boolean => a !== null && b !== null && a === b
const different = (a: string | null, b: string | null): boolean => a !== null && b !== null && a !== b

/**
 * One event: either the next state or the outcome. A start or end carrying another prompt's id is
 * foreign; a start or end without ids is taken as ours (the backend gave nothing to tell them
 * apart). A new prompt before our end means the command line never produced an exit status. The
 * shell it was typed in going away (ShellGone) ends it without one.
 */
export const step = (state: WatchState, event: PromptEvent): WatchState | Outcome => {
  switch (event._tag) {
    case "CommandStart":
      if (different(state.ours, event.promptId)) {
        return {
          _tag: "Foreign",
          detail: `another command started there (prompt ${event.promptId}, ours was typed at prompt ${state.ours})`
        }
      }
      return { ...state, started: true }
    case "CommandEnd":
      if (different(state.ours, event.promptId)) {
        return {
          _tag: "Foreign",
          detail: `a command of another prompt ended there (prompt ${event.promptId}, ours was typed at prompt ${state.ours})`
        }
      }
      return { _tag: "Ended", exitCode: event.exitCode, promptId: event.promptId ?? state.ours }
    case "Prompt":
      if (same(state.ours, event.promptId)) return state
      if (different(state.ours, event.promptId) || state.started) return { _tag: "Aborted" }
      return state
    case "ShellGone":
      if (different(state.ours, event.promptId)) return state
      return { _tag: "ShellGone", transportExitCode: event.exitCode, promptId: event.promptId ?? state.ours }
    case "SessionEnded":
      return { _tag: "SessionEnded" }
    case "Lost":
      return { _tag: "Lost", message: event.message, code: event.code }
  }
}

/** Whether `event` was offered before the command was typed (`after`: Submission.after). */
export const before = (event: PromptEvent, after: number | undefined): boolean =>
  after !== undefined && event.seq !== undefined && event.seq <= after

const isOutcome = (value: WatchState | Outcome): value is Outcome => "_tag" in value

/** Take events until the shell shows a prompt again (or the session or connection is gone). */
export const awaitNextPrompt = (events: Queue.Dequeue<PromptEvent>): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (;;) {
      const taken = yield* Effect.exit(Queue.take(events))
      if (Exit.isFailure(taken)) return
      const tag = taken.value._tag
      if (tag === "Prompt" || tag === "SessionEnded" || tag === "Lost") return
    }
  })

/**
 * Take events until one decides the outcome. A queue that shuts down counts as a lost connection.
 * `onStart` runs once, when a CommandStart attributed to our command is seen (interrupt_command
 * acts only on a command that started). Events numbered at or below `after` came before the
 * command was typed and are skipped.
 */
export const correlate = (
  events: Queue.Dequeue<PromptEvent>,
  ours: string | null,
  onStart: Effect.Effect<void> = Effect.void,
  after?: number
): Effect.Effect<Outcome> =>
  Effect.gen(function* () {
    let state: WatchState = { ours, started: false }
    for (;;) {
      const taken = yield* Effect.exit(Queue.take(events))
      if (Exit.isFailure(taken)) {
        return { _tag: "Lost", message: "the session's event stream ended", code: "session_lost" } as const
      }
      // Offered before the command was typed (the watch was subscribed first): not about it.
      if (before(taken.value, after)) continue
      const next = step(state, taken.value)
      if (isOutcome(next)) return next
      if (next.started && !state.started) yield* onStart
      state = next
    }
  })
