/**
 * Interrupting the command TermPilot typed at one prompt of an iTerm2 session: inside one
 * transaction (iTerm2 processes no terminal output meanwhile), verify that the session's last prompt
 * is that prompt and RUNNING, then send one ETX (as Ctrl-C would) to that session only, broadcast
 * suppressed. Nothing else is ever sent: no Enter, no other signal, no retry. Another TermPilot
 * process's claim on the session (Iterm2Claims) refuses the send; a dead holder's claim is cleared.
 */
import { Effect } from "effect"
import type { GetPromptResponse } from "../../../generated/iterm2/Iterm2Messages.js"
import { fail, type TermPilotError } from "../../../services/Errors.js"
import type { InterruptCheck } from "../../../services/Terminal.js"
import { inTransaction, promptAndVariables, sendText } from "./Calls.js"
import { CLAIM_VARIABLE, type Iterm2Claims } from "./Claims.js"
import type { Iterm2Connection } from "./ConnectionService.js"

type Conn = Iterm2Connection["Service"]

/** End of text, what the terminal's Ctrl-C sends; the line discipline turns it into SIGINT. */
export const ETX = "\x03"

/** What the session's last prompt (undefined: none) says about the command typed at `promptId`. */
export type InterruptVerdict = "running" | "ended" | "not_started" | "unverifiable"

export const interruptVerdict = (
  prompt: GetPromptResponse | undefined,
  promptId: string
): InterruptVerdict => {
  if (prompt?.unique_prompt_id === undefined || prompt.prompt_state === undefined) return "unverifiable"
  // A newer prompt is drawn: ours is over (ended, or aborted without an exit status).
  if (prompt.unique_prompt_id !== promptId) return "ended"
  switch (prompt.prompt_state) {
    case "RUNNING":
      return "running"
    case "FINISHED":
      return "ended"
    case "EDITING":
      return "not_started"
  }
}

const cannotVerify = (sessionId: string) =>
  fail(
    "command_not_running",
    `Session '${sessionId}' reports no shell-integration prompt, so TermPilot cannot verify which command is running; nothing was sent.`
  )

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
): Effect.Effect<InterruptCheck, TermPilotError> =>
  inTransaction(
    conn,
    Effect.gen(function* () {
      const [prompt, [claim]] = yield* Effect.interruptible(
        promptAndVariables(conn, sessionId, [CLAIM_VARIABLE])
      )
      const found = interruptVerdict(prompt, promptId)
      if (found === "unverifiable") return yield* cannotVerify(sessionId)
      if (found !== "running") return found
      const held = yield* claims.check(sessionId, claim)
      if (held._tag === "Dead") yield* claims.clearDead(sessionId)
      yield* sendText(conn, sessionId, ETX, "the interrupt")
      return "sent" as const
    })
  ).pipe(Effect.withSpan("Iterm2Terminal.interrupt"))
