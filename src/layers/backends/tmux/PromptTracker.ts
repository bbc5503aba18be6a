/**
 * PromptTracker — shell-integration events of one tmux pane, from the marks its control
 * client streams: `Prompt` at B, `CommandStart` at C, `CommandEnd` at D with a status, nothing at
 * a D without a C (the next prompt's `Prompt` tells the runner nothing ran), `SessionEnded` when
 * the pane dies or disappears, `Lost` when the server or its control clients go away.
 */
import { Effect, Queue } from "effect"
import { sessionNotFound } from "../../../services/Errors.js"
import type { PromptEvent, PromptTracker } from "../../../services/PromptTracker.js"
import type { TmuxRegistry } from "./Registry.js"

/** Event queue bound per watched pane; a watcher that falls this far behind drops the oldest. */
const WATCH_CAPACITY = 256

export const makeTmuxPromptTracker = (registry: TmuxRegistry): PromptTracker["Service"] => ({
  watch: (sessionId) =>
    Effect.gen(function* () {
      const { server, pane } = yield* registry.resolve(sessionId)
      // A pane whose output was seen is known; any other is checked (submit re-checks anyway).
      const known = server.panes.get(pane)
      if ((known === undefined || known.ended) && (yield* server.flags(pane)) === null) {
        return yield* sessionNotFound(sessionId)
      }
      const queue = yield* Effect.acquireRelease(
        Queue.sliding<PromptEvent>(WATCH_CAPACITY).pipe(
          Effect.tap((q) => Effect.sync(() => server.addWatcher(pane, q)))
        ),
        (q) =>
          Effect.andThen(
            Effect.sync(() => server.removeWatcher(pane, q)),
            Queue.shutdown(q)
          )
      )
      return queue as Queue.Dequeue<PromptEvent>
    }).pipe(Effect.withSpan("TmuxPromptTracker.watch"))
})
