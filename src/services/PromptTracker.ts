/**
 * PromptTracker — shell-integration events per session: a command started, a command ended with
 * an exit status, a new prompt was drawn, the shell a command ran in went away, the session ended. Subscribe before sending so that no
 * event can be missed. The events themselves are the model in src/domain/PromptEvent.ts.
 */
import { Context, type Effect, type Queue, type Scope } from "effect"
import type { PromptEvent } from "../domain/PromptEvent.js"
import type { TermPilotError } from "./Errors.js"

export type { PromptEvent } from "../domain/PromptEvent.js"

export class PromptTracker extends Context.Service<
  PromptTracker,
  {
    /**
     * Events of one session from now until the scope closes. Fails with `session_not_found` or
     * `shell_integration_required` when the session cannot be watched.
     */
    readonly watch: (
      sessionId: string
    ) => Effect.Effect<Queue.Dequeue<PromptEvent>, TermPilotError, Scope.Scope>
  }
>()("termpilot/PromptTracker") {}
