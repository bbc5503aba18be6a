/**
 * Readiness of an iTerm2 session from what iTerm2 reports: the last prompt (shell integration
 * marks: state and command range), whether a full-screen program holds the alternate screen, and
 * the claim variable, all asked for at once. The verdict is the pure rule in
 * src/domain/iterm2/PromptReadiness.ts; a session another TermPilot process holds (its claim,
 * Claims.ts) is never `ready`.
 */
import { Effect } from "effect"
import { CLAIM_VARIABLE } from "../../../domain/iterm2/ClaimVariable.js"
import { promptReadiness } from "../../../domain/iterm2/PromptReadiness.js"
import type { GetPromptResponse } from "../../../generated/iterm2/Iterm2Messages.js"
import type { TermPilotError } from "../../../services/Errors.js"
import type { Readiness } from "../../../services/Terminal.js"
import { promptAndVariables } from "./Calls.js"
import { type ClaimIdentity, claimedReadiness } from "./Claims.js"
import type { Iterm2Connection } from "./ConnectionService.js"

type Conn = Iterm2Connection["Service"]

/**
 * Prompt, alternate-screen flag and claim value (parsed JSON, null when unset) of one session, both
 * requests sent at once.
 */
export const promptAndScreen = (
  conn: Conn,
  sessionId: string
): Effect.Effect<readonly [GetPromptResponse | undefined, unknown, unknown], TermPilotError> =>
  promptAndVariables(conn, sessionId, ["showingAlternateScreen", CLAIM_VARIABLE]).pipe(
    Effect.map(([prompt, values]) => [prompt, values[0], values[1]] as const)
  )

export const sessionReadiness = (
  conn: Conn,
  sessionId: string,
  identity: ClaimIdentity
): Effect.Effect<Readiness, TermPilotError> =>
  promptAndScreen(conn, sessionId).pipe(
    Effect.map(([prompt, alt, claim]) => claimedReadiness(identity, promptReadiness(prompt, alt), claim))
  )
