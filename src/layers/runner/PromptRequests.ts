/**
 * PromptRequests — which run_command request of this process typed the command at a given prompt
 * of a session (CommandRunner.requestAt, for list_commands' `ran_by`): filled when a submit names
 * the prompt its command went to, bounded like the result registry (the newest `capacity` kept,
 * the oldest forgotten first). A prompt it does not hold was not ours, or is too old to tell.
 */
import { Effect } from "effect"
import { REGISTRY_CAPACITY } from "./ResultRegistry.js"

export interface PromptRequests {
  /** Note that `requestId` typed its command at `promptId` of `sessionId`. */
  readonly remember: (sessionId: string, promptId: string, requestId: string) => Effect.Effect<void>
  /** The request that typed at `promptId` of `sessionId`, while it is kept; null otherwise. */
  readonly requestAt: (sessionId: string, promptId: string) => Effect.Effect<string | null>
}

/** Session and prompt as one key (a session id has no NUL: identifiers refuse control characters). */
const keyOf = (sessionId: string, promptId: string): string => `${sessionId}\u0000${promptId}`

/** One synchronous step on one Map per operation (atomic on the one thread); iterates oldest first. */
export const makePromptRequests = (capacity: number = REGISTRY_CAPACITY): Effect.Effect<PromptRequests> =>
  Effect.sync(() => {
    const byPrompt = new Map<string, string>()
    return {
      remember: (sessionId, promptId, requestId) =>
        Effect.sync(() => {
          const key = keyOf(sessionId, promptId)
          byPrompt.delete(key)
          byPrompt.set(key, requestId)
          for (const oldest of byPrompt.keys()) {
            if (byPrompt.size <= capacity) break
            byPrompt.delete(oldest)
          }
        }),
      requestAt: (sessionId, promptId) => Effect.sync(() => byPrompt.get(keyOf(sessionId, promptId)) ?? null)
    }
  })
