/**
 * PromptCommands — the commands of an iTerm2 session as its own prompt list proves them, pure.
 * iTerm2 lists a session's prompt marks oldest first (ListPrompts) and answers each by id
 * (GetPrompt). A mark still EDITING never started a command (an empty Enter, the prompt being
 * typed at: iTerm2 gives it no output start and reports the current command line as its command),
 * so it is no command; a RUNNING one with a newer prompt after it ended without a status. A
 * command's output runs from its output start to the next prompt (OutputRange.ts). iTerm2 keeps no
 * times for a prompt, so none are reported.
 */
import type { GetPromptResponse } from "../../generated/iterm2/Iterm2Messages.js"
import { clampToPrompt, type OutputSpan, reportedRange, rowCount } from "./OutputRange.js"

/** The ids a listing considers: those after `afterKey` when the list holds it, else all (oldest first). */
export const idsAfter = (ids: ReadonlyArray<string>, afterKey: string | null): ReadonlyArray<string> => {
  const at = afterKey === null ? -1 : ids.indexOf(afterKey)
  return at < 0 ? ids : ids.slice(at + 1)
}

/** Where a prompt's command stands: null when the prompt is no command (iTerm2's state EDITING). */
export interface CommandState {
  readonly status: "running" | "finished" | "unknown"
  readonly exitCode: number | null
}

/** The state of the command typed at `prompt`; `next` is the prompt after it, if any. */
export const commandState = (
  prompt: GetPromptResponse,
  next: GetPromptResponse | undefined
): CommandState | null => {
  switch (prompt.prompt_state ?? "EDITING") {
    case "EDITING":
      return null
    case "FINISHED":
      return { status: "finished", exitCode: prompt.exit_status ?? null }
    case "RUNNING":
      // A newer prompt is drawn, yet no status came: it ended unreported (or runs a shell of its own).
      return { status: next === undefined ? "running" : "unknown", exitCode: null }
  }
}

/** The rows of a prompt's output: from its output start to the next prompt (else the cursor); null when iTerm2 reports none. */
export const outputSpanOf = (
  prompt: GetPromptResponse,
  next: GetPromptResponse | undefined
): OutputSpan | null => {
  const range = reportedRange(prompt)
  return range === null
    ? null
    : { start: range.start, end: clampToPrompt(range.cursor, next), complete: true }
}

/** Why a command's output cannot be read: iTerm2 reports no output range for it. */
export const NO_OUTPUT_RANGE = "iTerm2 reports no output range for this command"

/** One listed command (the Terminal contract's CommandRecord). */
export interface PromptCommand {
  readonly key: string
  readonly command: string | null
  readonly exitCode: number | null
  readonly cwd: string | null
  readonly startedAt: null
  readonly finishedAt: null
  readonly status: CommandState["status"]
  readonly promptId: string
  readonly outputLineCount: number | null
  readonly outputUnavailable: string | null
}

/**
 * The command typed at prompt `id` (as GetPrompt answered it), `next` the prompt after it; null
 * when the prompt is no command. A listed prompt's line is still in the history (iTerm2 drops a
 * mark with its line), and its output lies below it, so a known range is readable.
 */
export const promptCommand = (
  id: string,
  prompt: GetPromptResponse,
  next: GetPromptResponse | undefined
): PromptCommand | null => {
  const state = commandState(prompt, next)
  if (state === null) return null
  const span = outputSpanOf(prompt, next)
  return {
    key: id,
    command: prompt.command ?? null,
    exitCode: state.exitCode,
    cwd: prompt.working_directory ?? null,
    startedAt: null,
    finishedAt: null,
    status: state.status,
    promptId: id,
    outputLineCount: span === null ? null : rowCount(span.start, span.end),
    outputUnavailable: span === null ? NO_OUTPUT_RANGE : null
  }
}

/** The commands of one batch of prompts, newest first, and where the batch leaves off. */
export interface CommandBatch {
  readonly commands: ReadonlyArray<PromptCommand>
  /** The batch's oldest prompt: the `newer` of the batch before it. */
  readonly oldest: GetPromptResponse | undefined
  /** iTerm2 no longer had one of them (it left the history), so no older prompt is there either. */
  readonly gone: boolean
}

/**
 * The commands among the prompts `ids` (oldest first, consecutive in the list) as GetPrompt
 * answered them (`prompts`, aligned; undefined: unavailable), newest first, each clamped to the
 * prompt after it (for the newest, `newer`: the prompt after the batch, if any).
 */
export const commandsOf = (
  ids: ReadonlyArray<string>,
  prompts: ReadonlyArray<GetPromptResponse | undefined>,
  newer: GetPromptResponse | undefined
): CommandBatch => {
  const commands: Array<PromptCommand> = []
  let next = newer
  for (let i = ids.length - 1; i >= 0; i--) {
    const prompt = prompts[i]
    const id = ids[i]
    if (prompt === undefined || id === undefined) return { commands, oldest: next, gone: true }
    const command = promptCommand(id, prompt, next)
    if (command !== null) commands.push(command)
    next = prompt
  }
  return { commands, oldest: next, gone: false }
}
