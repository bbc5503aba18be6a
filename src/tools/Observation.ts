/**
 * What the model is shown of a terminal: text with escape sequences and concealing characters
 * removed, then (unless switched off) recognised secrets redacted, with a count. Session metadata
 * strings get the same hygiene. One place, used by every tool that returns terminal text.
 */
import { Effect, Schema } from "effect"
import { sanitizeTerminalText } from "../domain/Hygiene.js"
import { redactSecrets } from "../domain/Redaction.js"
import type { SessionInfo } from "../domain/Session.js"
import { CommandResult, InterruptResult } from "../services/CommandRunner.js"
import { currentToolSettings } from "../services/ToolSettings.js"
import { Integer } from "./Fields.js"

export interface Observed {
  readonly text: string
  /** Secrets replaced by a `[REDACTED:kind]` marker. */
  readonly redactions: number
}

/** Hygiene first: a zero-width character inside a token must not split it past redaction. */
export const observeText = (text: string, redact: boolean): Observed => {
  const clean = sanitizeTerminalText(text).text
  if (!redact) return { text: clean, redactions: 0 }
  const redacted = redactSecrets(clean)
  return { text: redacted.text, redactions: redacted.count }
}

export const lineCount = (text: string): number => (text === "" ? 0 : text.split("\n").length)

export const observe = (text: string): Effect.Effect<Observed> =>
  Effect.map(currentToolSettings, (s) => observeText(text, s.redactSecrets))

const redactions = {
  redactions: Integer.annotate({
    description: "How many secrets in `output` were replaced by [REDACTED:kind] markers."
  })
}

/** run_command / get_command_result output: the CommandResult plus how many secrets were redacted. */
export const ObservedCommandResult = CommandResult.pipe(Schema.fieldsAssign(redactions))
export type ObservedCommandResult = typeof ObservedCommandResult.Type

/** interrupt_command output: the InterruptResult plus how many secrets were redacted. */
export const ObservedInterruptResult = InterruptResult.pipe(Schema.fieldsAssign(redactions))
export type ObservedInterruptResult = typeof ObservedInterruptResult.Type

/** A command's result as the model sees it: `output` cleaned and redacted, its line count redone. */
export const observeResult = <A extends { readonly output: string | null }>(
  result: A
): Effect.Effect<A & { readonly redactions: number }> =>
  result.output === null
    ? Effect.succeed({ ...result, redactions: 0 })
    : Effect.map(observe(result.output), (o) => ({
        ...result,
        output: o.text,
        output_line_count: lineCount(o.text),
        redactions: o.redactions
      }))

const clean = (value: string | null): string | null =>
  value === null ? null : sanitizeTerminalText(value).text

/** Titles, paths and names come from the terminal too: same hygiene, no redaction. */
export const observeSession = (s: SessionInfo): SessionInfo => ({
  ...s,
  window_title: clean(s.window_title),
  tab_title: clean(s.tab_title),
  session_title: clean(s.session_title),
  hostname: clean(s.hostname),
  username: clean(s.username),
  cwd: clean(s.cwd),
  tty: clean(s.tty),
  job_name: clean(s.job_name)
})
