/**
 * Interrupt — `Terminal.interrupt` over tmux, shaped like submit: resolve the pane, refuse
 * TermPilot's own, claim it across TermPilot processes (Claims.ts) while reading its flag row
 * over the client that streams it (refusing the pane the MCP client runs in) (the reply is ordered after
 * every byte the pane wrote before it, so the mark stream is current), let the pure verdict
 * (src/domain/tmux/InterruptVerdict.ts) decide, and only on "running our command" send one ETX
 * (`send-keys -H -t %N 03`, no Enter). The steps before the send are interruptible; the send is not.
 */
import { Effect } from "effect"
import { interruptVerdict } from "../../../domain/tmux/InterruptVerdict.js"
import { flagsOf } from "../../../domain/tmux/PaneFormat.js"
import { interruptLine } from "../../../domain/tmux/SendEncoding.js"
import { fail, type SendError } from "../../../services/Errors.js"
import type { InterruptCheck } from "../../../services/Terminal.js"
import { claimPane, releasePane } from "./Claims.js"
import { type OwnPane, refuseClientHost, refuseOwnPane } from "./ClientPane.js"
import { mayHaveReached } from "./Readiness.js"
import type { TmuxRegistry } from "./Registry.js"

export const makeTmuxInterrupt =
  (registry: TmuxRegistry, own: OwnPane | null) =>
  (sessionId: string, promptId: string): Effect.Effect<InterruptCheck, SendError> =>
    Effect.gen(function* () {
      const resolved = yield* Effect.interruptible(registry.resolve(sessionId))
      yield* refuseOwnPane(own, resolved.id, sessionId, "an interrupt")
      const { server, pane } = resolved
      const client = yield* Effect.interruptible(server.clientFor(pane))
      const entry = server.panes.entry(pane)
      // Claimed across TermPilot processes (ours already while our command runs there: Claims.ts).
      const { row } = yield* Effect.interruptible(claimPane(client, pane, entry.claim, sessionId))
      return yield* Effect.gen(function* () {
        yield* refuseClientHost(server, row, sessionId, "an interrupt")
        const trusted = entry.owner === client && client.isOpen
        const verdict = interruptVerdict(flagsOf(row), entry.stream.facts, promptId, trusted)
        if (verdict._tag === "Answer") return verdict.check
        if (verdict._tag === "Refuse") {
          return yield* fail(
            verdict.code,
            `Session '${sessionId}' cannot be interrupted: ${verdict.reason}. Nothing was sent.`
          )
        }
        const [reply] = yield* client
          .commands([interruptLine(pane)])
          .pipe(Effect.mapError(mayHaveReached(sessionId, "interrupt")))
        if (reply?.ok !== true) {
          return yield* fail(
            "tmux_unavailable",
            `tmux refused to send the interrupt to session '${sessionId}' (${reply?.lines.join(" ") ?? ""}); nothing was sent.`
          )
        }
        return "sent" as const
      }).pipe(Effect.ensuring(Effect.sync(() => releasePane(client, pane, entry.claim))))
    }).pipe(Effect.withSpan("TmuxTerminal.interrupt"))
