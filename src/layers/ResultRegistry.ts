/**
 * The bounded, in-memory registry of run_command results that get_command_result reads: the last
 * `capacity` requests by request_id, each either final or pending (with a Deferred that completes
 * when its background watch ends). Eviction drops the oldest finished entry first.
 */
import { Deferred, Duration, Effect, Option, Ref } from "effect"
import type { CommandResult } from "../services/CommandRunner.js"
import { fail, type TermPilotError } from "../services/Errors.js"

/** How many requests are kept (the contract's "last 256 requests"). */
export const REGISTRY_CAPACITY = 256

interface Entry {
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
  /** The current result of `requestId`, waiting up to `waitSeconds` for a pending one to finish. */
  readonly lookup: (requestId: string, waitSeconds: number) => Effect.Effect<CommandResult, TermPilotError>
  /** Number of entries held (at most the capacity). */
  readonly size: Effect.Effect<number>
}

/**
 * Insert, then evict down to `capacity`: the oldest finished entry other than the new one first,
 * else the oldest entry.
 */
const insert = (
  entries: ReadonlyMap<string, Entry>,
  id: string,
  entry: Entry,
  capacity: number
): ReadonlyMap<string, Entry> => {
  const next = new Map(entries)
  next.delete(id)
  next.set(id, entry)
  while (next.size > capacity) {
    let victim: string | undefined
    for (const [key, value] of next) {
      if (key !== id && value.done === null) {
        victim = key
        break
      }
    }
    victim ??= next.keys().next().value
    if (victim === undefined || (victim === id && next.size === 1)) break
    next.delete(victim)
  }
  return next
}

/**
 * An evicted pending entry is only forgotten by the registry: its watch keeps running (and keeps
 * the session's one-command-in-flight claim) until the command ends or the watch bound passes, and
 * a run_command still waiting on it gets its result; get_command_result then says request_not_found.
 */
export const makeResultRegistry = (capacity: number = REGISTRY_CAPACITY): Effect.Effect<ResultRegistry> =>
  Effect.gen(function* () {
    const entries = yield* Ref.make<ReadonlyMap<string, Entry>>(new Map())

    const record = (result: CommandResult, done?: Deferred.Deferred<CommandResult>) =>
      Ref.update(entries, (map) => insert(map, result.request_id, { result, done: done ?? null }, capacity))

    const finish = (result: CommandResult) =>
      Ref.update(entries, (map) => {
        if (!map.has(result.request_id)) return map
        const next = new Map(map)
        next.set(result.request_id, { result, done: null })
        return next
      })

    const waitExpired = (snapshot: CommandResult) =>
      Ref.modify(entries, (map): [CommandResult, ReadonlyMap<string, Entry>] => {
        const entry = map.get(snapshot.request_id)
        if (entry === undefined) return [snapshot, map]
        if (entry.done === null) return [entry.result, map]
        const next = new Map(map)
        next.set(snapshot.request_id, { result: snapshot, done: entry.done })
        return [snapshot, next]
      })

    const lookup = (requestId: string, waitSeconds: number) =>
      Effect.gen(function* () {
        if (!Number.isFinite(waitSeconds) || waitSeconds < 0) {
          return yield* fail("invalid_request", "wait_seconds must be a number of seconds, 0 or more")
        }
        const entry = (yield* Ref.get(entries)).get(requestId)
        if (entry === undefined) {
          return yield* fail(
            "request_not_found",
            `No request with request_id '${requestId}' is known: it was never made by this server process, or it is older than the last ${capacity} requests kept.`
          )
        }
        if (entry.done === null || waitSeconds === 0) return entry.result
        const finished = yield* Deferred.await(entry.done).pipe(
          Effect.timeoutOption(Duration.seconds(waitSeconds))
        )
        if (Option.isSome(finished)) return finished.value
        return (yield* Ref.get(entries)).get(requestId)?.result ?? entry.result
      })

    return {
      record,
      finish,
      waitExpired,
      lookup,
      size: Effect.map(Ref.get(entries), (map) => map.size)
    }
  })
