/**
 * The execution-readiness verdict from what a backend observes about one session: shell
 * integration, the prompt state, the command line, the alternate screen. Pure; the backends
 * gather the facts. Only `ready` accepts run_command.
 */
import type { Readiness } from "./Session.js"

export interface ReadinessFacts {
  /** Shell integration is installed and reporting for this session. */
  readonly integration: boolean
  /** State of the last prompt ("EDITING", "RUNNING", "FINISHED"); null when there is no prompt. */
  readonly promptState: string | null
  /** Whether the command line at the prompt is empty; null when the backend could not tell. */
  readonly commandLineEmpty: boolean | null
  /** A full-screen program (vim, less, top…) holds the alternate screen. */
  readonly alternateScreen: boolean
  /** A command of ours is in flight on this session. */
  readonly commandInFlight?: boolean
}

/**
 * no integration → shell_integration_required; full-screen app or no prompt → interactive;
 * our command in flight, RUNNING, or FINISHED without a new prompt → busy; EDITING with text typed
 * → input_pending; EDITING with an empty command line → ready; anything else → unknown.
 */
export const readinessFrom = (facts: ReadinessFacts): Readiness => {
  if (!facts.integration) return "shell_integration_required"
  if (facts.alternateScreen || facts.promptState === null) return "interactive"
  if (facts.commandInFlight === true) return "busy"
  switch (facts.promptState) {
    case "RUNNING":
    case "FINISHED":
      return "busy"
    case "EDITING":
      if (facts.commandLineEmpty === true) return "ready"
      if (facts.commandLineEmpty === false) return "input_pending"
      return "unknown"
    default:
      return "unknown"
  }
}

/** Whether run_command may type into a session with this readiness. */
export const acceptsCommands = (readiness: Readiness): boolean => readiness === "ready"
