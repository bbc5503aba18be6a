/**
 * SendKeys — `Terminal.sendKeys` over tmux, shaped like the interrupt: resolve the pane, refuse
 * TermPilot's own, claim it across TermPilot processes (Claims.ts) while reading its flags over
 * its control client and refuse the pane the MCP client runs in and a pane whose keys would go
 * elsewhere (a mode such as copy mode, synchronize-panes, input off, a dead pane), then type the
 * bytes as `send-keys -H` hex (nothing in them can be read by tmux as a key name, flag or format).
 * The steps before the send are interruptible; the send is not.
 */
import { Effect } from "effect"
import { keyTargetRefusal } from "../../../domain/tmux/InterruptVerdict.js"
import { flagsOf } from "../../../domain/tmux/PaneFormat.js"
import { typeLines } from "../../../domain/tmux/SendEncoding.js"
import { fail, type SendError } from "../../../services/Errors.js"
import { claimPane, releasePane } from "./Claims.js"
import { type OwnPane, refuseClientHost, refuseOwnPane } from "./ClientPane.js"
import { mayHaveReached, typingRefusal } from "./Readiness.js"
import type { TmuxRegistry } from "./Registry.js"

export const makeTmuxKeys =
  (registry: TmuxRegistry, own: OwnPane | null) =>
  (sessionId: string, bytes: string): Effect.Effect<void, SendError> =>
    Effect.gen(function* () {
      const resolved = yield* Effect.interruptible(registry.resolve(sessionId))
      yield* refuseOwnPane(own, resolved.id, sessionId, "keys")
      const { server, pane } = resolved
      const client = yield* Effect.interruptible(server.clientFor(pane))
      const claim = server.panes.entry(pane).claim
      // Claimed across TermPilot processes for as long as the keys take (Claims.ts).
      const { row } = yield* Effect.interruptible(claimPane(client, pane, claim, sessionId))
      yield* Effect.gen(function* () {
        yield* refuseClientHost(server, row, sessionId, "keys")
        const blocked = keyTargetRefusal(flagsOf(row))
        if (blocked !== undefined) {
          return yield* fail(
            blocked.code,
            `Session '${sessionId}' cannot take keys: ${blocked.reason}. Nothing was sent.`
          )
        }
        const replies = yield* client
          .commands(typeLines(pane, bytes))
          .pipe(Effect.mapError(mayHaveReached(sessionId, "keys")))
        const refused = typingRefusal(replies, sessionId, "the keys")
        if (refused !== undefined) return yield* refused
      }).pipe(Effect.ensuring(Effect.sync(() => releasePane(client, pane, claim))))
    }).pipe(Effect.withSpan("TmuxTerminal.sendKeys"))
