/**
 * PromptReadiness — the fail-closed readiness verdict of one iTerm2 session, pure: from its last
 * prompt as shell integration marks it (none: no integration; its state; whether its command line
 * is empty) and whether a full-screen program holds the alternate screen; and why a session that is
 * not `ready` refuses a command. The verdict itself is the backend-neutral rule in
 * src/domain/Readiness.ts; a session another TermPilot process has claimed is never `ready`
 * (src/layers/backends/iterm2/Claims.ts).
 */
import type { CoordRange, GetPromptResponse } from "../../generated/iterm2/Iterm2Messages.js"
import { fail, type TermPilotError } from "../Errors.js"
import { readinessFrom } from "../Readiness.js"
import type { Readiness } from "../Session.js"

/** True when the command range is known and empty; null when iTerm2 did not report it. */
export const commandLineEmpty = (range: CoordRange | undefined): boolean | null => {
  const s = range?.start
  const e = range?.end
  if (s?.x === undefined || s.y === undefined || e?.x === undefined || e.y === undefined) return null
  return s.x === e.x && s.y === e.y
}

/** The readiness a prompt reply (undefined: no shell integration) and the alternate-screen flag give. */
export const promptReadiness = (prompt: GetPromptResponse | undefined, alternateScreen: unknown): Readiness =>
  readinessFrom({
    integration: prompt !== undefined,
    promptState: prompt?.prompt_state ?? null,
    commandLineEmpty: prompt === undefined ? null : commandLineEmpty(prompt.command_range),
    alternateScreen: alternateScreen === true || alternateScreen === 1
  })

/** Why a session that is not `ready` refuses a command; nothing is sent in any of these cases. */
export const readinessRefusal = (sessionId: string, readiness: Readiness): TermPilotError => {
  switch (readiness) {
    case "shell_integration_required":
      return fail(
        "shell_integration_required",
        `Session '${sessionId}' has no shell integration, so TermPilot cannot verify an idle prompt or see when a command ends. Install iTerm2's Shell Integration in that shell.`
      )
    case "input_pending":
      return fail(
        "session_not_ready",
        `Session '${sessionId}' has text typed at the prompt that was not entered; nothing was sent. Ask the user to clear the command line.`
      )
    case "busy":
      return fail("session_not_ready", `Session '${sessionId}' is running a command; nothing was sent.`)
    case "interactive":
      return fail(
        "session_not_ready",
        `Session '${sessionId}' shows a full-screen program or no shell prompt; nothing was sent.`
      )
    default:
      return fail(
        "session_not_ready",
        `Session '${sessionId}' is not at a verified shell command boundary; nothing was sent.`
      )
  }
}
