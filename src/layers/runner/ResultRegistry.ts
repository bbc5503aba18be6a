/**
 * The bounded, in-memory registry of run_command results that get_command_result reads: the last
 * `capacity` requests by request_id, each either final or pending (with a Deferred that completes
 * when its background watch ends; the runner waits on it). Eviction drops the oldest finished entry first.
 */
import { type Deferred, Effect, Option } from "effect"
import type { CommandResult } from "../../services/CommandRunner.js"
import { fail, type TermPilotError } from "../../services/Errors.js"

/** How many requests are kept (the contract's "last 256 requests"). */
export const REGISTRY_CAPACITY = 256

export interface RegistryEntry {
  /** The latest known state: final when `done` is null, a snapshot (submitted/timed_out) otherwise. */
  readonly result: CommandResult
  readonly done: Deferred.Deferred<CommandResult> | null
}

export interface ResultRegistry {
  /** Record a final result, or a pending snapshot whose final result `done` will carry. */
  readonly record: (result: CommandResult, done?: Deferred.Deferred<CommandResult>) => Effect.Effect<void>
  /** Replace a pending entry by its final result (no-op when it was evicted meanwhile). */
  readonly finish: (result: CommandResult) => Effect.Effect<void>
  /**
   * A caller stopped waiting: store `snapshot` if the entry is still pending and return it, or
   * return the final result if the watch finished in the meantime.
   */
  readonly waitExpired: (snapshot: CommandResult) => Effect.Effect<CommandResult>
  /** The entry of `requestId`; `request_not_found` when it is unknown (or was evicted). */
  readonly get: (requestId: string) => Effect.Effect<RegistryEntry, TermPilotError>
  /** The entry of `requestId`, if it is still kept. */
  readonly current: (requestId: string) => Effect.Effect<Option.Option<RegistryEntry>>
  /** Number of entries held (at most the capacity). */
  readonly size: Effect.Effect<number>
}

/**
 * Insert (as the newest), then evict down to `capacity`: the oldest finished entry other than the
 * new one first, else the oldest entry. Mutates `entries`, which iterates oldest first.
 */
const insert = (entries: Map<string, RegistryEntry>, id: string, entry: RegistryEntry, capacity: number) => {
  entries.delete(id)
  entries.set(id, entry)
  while (entries.size > capacity) {
    let victim: string | undefined
    for (const [key, value] of entries) {
      if (key !== id && value.done === null) {
        victim = key
        break
      }
    }
    victim ??= entries.keys().next().value
    if (victim === undefined || (victim === id && entries.size === 1)) break
    entries.delete(victim)
  }
}

/**
 * An evicted pending entry is only forgotten by the registry: its watch keeps running (and keeps
 * the session's one-command-in-flight claim) until the command ends or the watch bound passes, and
 * a run_command still waiting on it gets its result; get_command_result then says request_not_found.
 * Every operation is one synchronous step on one Map (no copy per call): atomic on the one thread.
 */
export const makeResultRegistry = (capacity: number = REGISTRY_CAPACITY): Effect.Effect<ResultRegistry> =>
  Effect.sync(() => {
    const entries = new Map<string, RegistryEntry>()

    const record = (result: CommandResult, done?: Deferred.Deferred<CommandResult>) =>
      Effect.sync(() => insert(entries, result.request_id, { result, done: done ?? null }, capacity))

    const finish = (result: CommandResult) =>
      Effect.sync(() => {
        if (entries.has(result.request_id)) entries.set(result.request_id, { result, done: null })
      })

    const waitExpired = (snapshot: CommandResult) =>
      Effect.sync((): CommandResult => {
        const entry = entries.get(snapshot.request_id)
        if (entry === undefined) return snapshot
        if (entry.done === null) return entry.result
        entries.set(snapshot.request_id, { result: snapshot, done: entry.done })
        return snapshot
      })

    const get = (requestId: string) =>
      Effect.suspend(() => {
        const entry = entries.get(requestId)
        return entry !== undefined
          ? Effect.succeed(entry)
          : Effect.fail(
              fail(
                "request_not_found",
                `No request with request_id '${requestId}' is known: it was never made by this server process, or it is older than the last ${capacity} requests kept.`
              )
            )
      })

    return {
      record,
      finish,
      waitExpired,
      get,
      current: (requestId: string) => Effect.sync(() => Option.fromNullishOr(entries.get(requestId))),
      size: Effect.sync(() => entries.size)
    }
  })
