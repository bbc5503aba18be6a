/**
 * Interrupting the command TermPilot typed at one prompt of an iTerm2 session: inside one
 * transaction (iTerm2 processes no terminal output meanwhile), the pure verdict
 * (src/domain/iterm2/InterruptVerdict.ts) on the session's last prompt, and only when that prompt is
 * the command's and RUNNING, one ETX (as Ctrl-C would) to that session only, broadcast suppressed.
 * Nothing else is ever sent: no Enter, no other signal, no retry. Another TermPilot process's claim
 * on the session (Claims.ts) refuses the send, as does the session the MCP client itself runs in
 * (ClientSession.ts); a dead holder's claim is cleared.
 */
import { Effect } from "effect"
import { CLAIM_VARIABLE } from "../../../domain/iterm2/ClaimVariable.js"
import { ETX, interruptVerdict } from "../../../domain/iterm2/InterruptVerdict.js"
import { fail, type SendError } from "../../../services/Errors.js"
import type { InterruptCheck } from "../../../services/Terminal.js"
import { inTransaction, promptAndVariables, sendText } from "./Calls.js"
import type { Iterm2Claims } from "./Claims.js"
import { CLIENT_HOST_VARIABLES, refuseClientSession } from "./ClientSession.js"
import type { Iterm2Connection } from "./ConnectionService.js"

type Conn = Iterm2Connection["Service"]

/**
 * The check and the send of one interrupt, in one transaction; only the check is interruptible.
 * The interrupt writes no claim: within the transaction, nothing else can be typed there anyway,
 * and a claim this process holds (the command being interrupted) stays until that command is over.
 */
export const interruptCommand = (
  conn: Conn,
  claims: Iterm2Claims["Service"],
  sessionId: string,
  promptId: string
): Effect.Effect<InterruptCheck, SendError> =>
  inTransaction(
    conn,
    Effect.gen(function* () {
      const [prompt, [claim, ...host]] = yield* Effect.interruptible(
        promptAndVariables(conn, sessionId, [CLAIM_VARIABLE, ...CLIENT_HOST_VARIABLES])
      )
      yield* refuseClientSession(sessionId, host, "an interrupt")
      const verdict = interruptVerdict(prompt, promptId)
      if (verdict._tag === "Answer") return verdict.check
      if (verdict._tag === "Refuse")
        return yield* fail(verdict.code, `Session '${sessionId}' ${verdict.reason}; nothing was sent.`)
      const held = yield* claims.check(sessionId, claim)
      if (held._tag === "Dead") yield* claims.clearDead(sessionId)
      yield* sendText(conn, sessionId, ETX, "the interrupt")
      return "sent" as const
    })
  ).pipe(Effect.withSpan("Iterm2Terminal.interrupt"))
