/**
 * The bounded, in-memory registry of run_command results that get_command_result reads: the last
 * `capacity` requests by request_id, each either final or pending (with a Deferred that completes
 * when its background watch ends; the runner waits on it). Eviction drops the oldest finished entry first.
 */
import { type Deferred, Effect, Option, Ref } from "effect"
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
 * Insert, then evict down to `capacity`: the oldest finished entry other than the new one first,
 * else the oldest entry.
 */
const insert = (
  entries: ReadonlyMap<string, RegistryEntry>,
  id: string,
  entry: RegistryEntry,
  capacity: number
): ReadonlyMap<string, RegistryEntry> => {
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
    const entries = yield* Ref.make<ReadonlyMap<string, RegistryEntry>>(new Map())

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
      Ref.modify(entries, (map): [CommandResult, ReadonlyMap<string, RegistryEntry>] => {
        const entry = map.get(snapshot.request_id)
        if (entry === undefined) return [snapshot, map]
        if (entry.done === null) return [entry.result, map]
        const next = new Map(map)
        next.set(snapshot.request_id, { result: snapshot, done: entry.done })
        return [snapshot, next]
      })

    const get = (requestId: string) =>
      Effect.flatMap(Ref.get(entries), (map) => {
        const entry = map.get(requestId)
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
      current: (requestId: string) =>
        Effect.map(Ref.get(entries), (map) => Option.fromNullable(map.get(requestId))),
      size: Effect.map(Ref.get(entries), (map) => map.size)
    }
  })
