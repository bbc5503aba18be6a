/**
 * OutputSoFar — what a command still running has written, as the runner reports it: the line
 * count for progress reports, and the bounded tail of its output for a pending snapshot. Only for
 * a command that may have started (InFlightRequests.mayHaveStarted) whose prompt the backend
 * identified; otherwise nothing (null), and a failed or slow read leaves the snapshot without
 * output rather than failing.
 */
import { Duration, Effect, Option } from "effect"
import { type CommandResult, MAX_OUTPUT_LINES, type RunRequest } from "../../services/CommandRunner.js"
import type { TermPilotError } from "../../services/Errors.js"
import type { Terminal } from "../../services/Terminal.js"
import * as R from "./CommandResults.js"
import { type InFlightRequests, mayHaveStarted } from "./InFlightRequests.js"
import type { ResultRegistry } from "./ResultRegistry.js"

export { MAX_OUTPUT_LINES }

/** The line bound of one request's output. */
export const outputLinesOf = (request: RunRequest): number =>
  Math.min(MAX_OUTPUT_LINES, Math.max(1, Math.floor(request.maxOutputLines)))

export interface Current {
  readonly result: CommandResult
  readonly final: boolean
}

export interface OutputSoFar {
  /** Output lines of the request's command so far; null before it started or when unknown. */
  readonly lineCount: (requestId: string) => Effect.Effect<number | null, TermPilotError>
  /**
   * The request's result as it stands: final, or the pending snapshot with its output so far.
   * `fallback` (a pending snapshot) stands in when the registry no longer holds the request.
   */
  readonly current: (requestId: string, fallback: CommandResult) => Effect.Effect<Current>
}

/** The request's command, when it may have started and its prompt is known. */
const runningAt = (inFlight: InFlightRequests, requestId: string) =>
  Effect.gen(function* () {
    const live = yield* inFlight.byRequest(requestId)
    if (Option.isNone(live) || live.value.promptId === null) return Option.none()
    if (!(yield* mayHaveStarted(live.value))) return Option.none()
    return Option.some({ live: live.value, promptId: live.value.promptId })
  })

export const makeOutputSoFar = (
  terminal: Terminal["Service"],
  registry: ResultRegistry,
  inFlight: InFlightRequests
): OutputSoFar => {
  const lineCount = (requestId: string) =>
    Effect.flatMap(
      runningAt(inFlight, requestId),
      Option.match({
        onNone: () => Effect.succeed(null),
        onSome: ({ live, promptId }) => terminal.outputLineCount(live.ctx.request.sessionId, promptId)
      })
    )

  const withOutput = (snapshot: CommandResult) =>
    Effect.gen(function* () {
      const running = yield* runningAt(inFlight, snapshot.request_id)
      if (Option.isNone(running)) return snapshot
      const { live, promptId } = running.value
      const bounds = { maxLines: outputLinesOf(live.ctx.request), maxChars: live.ctx.request.maxOutputChars }
      const read = yield* terminal.commandOutput(live.ctx.request.sessionId, promptId, bounds).pipe(
        Effect.timeoutOption(Duration.millis(live.ctx.deadlineMs)),
        Effect.orElseSucceed(() => Option.none())
      )
      return Option.match(read, {
        onNone: () => snapshot,
        onSome: (output) => R.withOutput(snapshot, output)
      })
    })

  const current = (requestId: string, fallback: CommandResult) =>
    Effect.gen(function* () {
      const entry = yield* registry.current(requestId)
      if (Option.isSome(entry) && entry.value.done === null)
        return { result: entry.value.result, final: true }
      const snapshot = Option.isSome(entry) ? entry.value.result : fallback
      return { result: yield* withOutput(snapshot), final: false }
    })

  return { lineCount, current }
}
