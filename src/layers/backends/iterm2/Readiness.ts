/**
 * Readiness of an iTerm2 session from what iTerm2 reports: the last prompt (shell integration
 * marks: state and command range) and whether a full-screen program holds the alternate screen.
 * The verdict itself is the pure rule in src/domain/Readiness.ts; a session another TermPilot
 * process holds (its claim, Iterm2Claims) is never `ready`.
 */
import { Effect } from "effect"
import { readinessFrom } from "../../../domain/Readiness.js"
import type { CoordRange, GetPromptResponse } from "../../../generated/iterm2/Iterm2Messages.js"
import type { TermPilotError } from "../../../services/Errors.js"
import type { Readiness } from "../../../services/Terminal.js"
import { promptAndVariables } from "./Calls.js"
import { CLAIM_VARIABLE, type ClaimIdentity, claimedReadiness } from "./Claims.js"
import type { Iterm2Connection } from "./ConnectionService.js"

type Conn = Iterm2Connection["Service"]

/** True when the command range is known and empty; null when iTerm2 did not report it. */
export const commandLineEmpty = (range: CoordRange | undefined): boolean | null => {
  const s = range?.start
  const e = range?.end
  if (s?.x === undefined || s.y === undefined || e?.x === undefined || e.y === undefined) return null
  return s.x === e.x && s.y === e.y
}

/** The verdict for a prompt reply (undefined = no shell integration) and the alternate-screen flag. */
export const verdict = (prompt: GetPromptResponse | undefined, alternateScreen: unknown): Readiness =>
  readinessFrom({
    integration: prompt !== undefined,
    promptState: prompt?.prompt_state ?? null,
    commandLineEmpty: prompt === undefined ? null : commandLineEmpty(prompt.command_range),
    alternateScreen: alternateScreen === true || alternateScreen === 1
  })

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
    Effect.map(([prompt, alt, claim]) => claimedReadiness(identity, verdict(prompt, alt), claim))
  )
