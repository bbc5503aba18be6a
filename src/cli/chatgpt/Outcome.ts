/**
 * How a `termpilot chatgpt …` command ends: what it prints for people (stdout, and stderr for
 * problems), what it prints with `--json`, and its exit code. `CliExit` carries a non-zero code
 * to the bin entry after everything has already been printed.
 */
import { Console, Data, Effect } from "effect"

/** "Already reported; exit with this code." The bin maps it to `process.exitCode`. */
export class CliExit extends Data.TaggedError("CliExit")<{ readonly code: number }> {}

export interface Outcome {
  readonly exitCode: number
  /** Lines for stdout in human mode. */
  readonly out: ReadonlyArray<string>
  /** Lines for stderr in human mode (errors, remedies). */
  readonly err: ReadonlyArray<string>
  /** The whole result in `--json` mode (printed to stdout). */
  readonly json: Readonly<Record<string, unknown>>
}

export const EXIT_FAILED = 1
export const EXIT_USAGE = 2

/** Prints the outcome and fails with `CliExit` when its exit code is non-zero. */
export const emit = (outcome: Outcome, json: boolean): Effect.Effect<void, CliExit> =>
  Effect.gen(function* () {
    if (json) {
      yield* Console.log(JSON.stringify(outcome.json, null, 2))
    } else {
      if (outcome.out.length > 0) yield* Console.log(outcome.out.join("\n"))
      if (outcome.err.length > 0) yield* Console.error(outcome.err.join("\n"))
    }
    if (outcome.exitCode !== 0) return yield* new CliExit({ code: outcome.exitCode })
  })

/** A refusal before anything ran (bad input, missing key, …). */
export const refusal = (
  reason: string,
  message: string,
  remedy: ReadonlyArray<string> = [],
  exitCode: number = EXIT_USAGE
): Outcome => ({
  exitCode,
  out: [],
  err: [`Error: ${message}`, ...remedy],
  json: { ok: false, error: { reason, message }, remedy: remedy.length > 0 ? remedy.join("\n") : null }
})
