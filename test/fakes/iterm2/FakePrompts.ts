/**
 * FakePrompts — one session's prompt marks as iTerm2 keeps them: a GUID per prompt, positions in
 * absolute coordinates taken at the exact cursor position where each OSC 133 mark was parsed, the
 * command text frozen at C, the exit status from D, and the GetPromptResponse built from a mark.
 */
import { randomUUID } from "node:crypto"
import { type Osc133Mark, type PromptPhase, stepPrompt } from "../../../src/domain/Osc133.js"
import type { Coord, GetPromptResponse, PromptState } from "../../../src/generated/iterm2/Iterm2Messages.js"
import type { FakeScreen } from "./FakeScreen.js"

type Pos = Required<Coord>

export interface PromptMark {
  readonly id: string
  readonly promptStart: Pos
  workingDirectory: string | null
  commandStart: Pos | null
  /** Frozen at C (or at an abort); while editing the end is read live from the screen. */
  commandEnd: Pos | null
  command: string | null
  outputStart: Pos | null
  exitCode: number | null
  phase: PromptPhase
}

export type PromptEvent =
  | { readonly _tag: "Prompt"; readonly mark: PromptMark }
  | { readonly _tag: "CommandStart"; readonly mark: PromptMark; readonly command: string }
  | { readonly _tag: "CommandEnd"; readonly mark: PromptMark; readonly status: number }

export class FakePrompts {
  private readonly marks: Array<PromptMark> = []

  constructor(private readonly screen: FakeScreen) {}

  /** Applies one OSC 133 mark at the current cursor; returns the API event it causes, if any. */
  apply(mark: Osc133Mark, workingDirectory: string | null): PromptEvent | undefined {
    const cursor = this.screen.cursor()
    let current = this.marks[this.marks.length - 1]
    const { phase, step } = stepPrompt(current?.phase ?? "none", mark)
    switch (step._tag) {
      case "NewPrompt":
        this.marks.push(newMark(cursor, workingDirectory))
        return undefined
      case "PromptDrawn": {
        if (current === undefined || current.phase !== "prompt") {
          current = newMark(cursor, workingDirectory)
          this.marks.push(current)
        }
        current.commandStart = cursor
        current.phase = phase
        return { _tag: "Prompt", mark: current }
      }
      case "CommandStarted": {
        if (current?.commandStart == null) return undefined
        current.commandEnd = this.screen.endOfLogicalLine(current.commandStart)
        current.command = this.screen.textBetween(current.commandStart, current.commandEnd)
        current.outputStart = cursor
        current.phase = phase
        return { _tag: "CommandStart", mark: current, command: current.command }
      }
      case "CommandEnded":
        if (current === undefined) return undefined
        current.exitCode = step.exitCode
        current.phase = phase
        return { _tag: "CommandEnd", mark: current, status: step.exitCode }
      case "Aborted":
        if (current?.commandStart != null) {
          current.commandEnd = this.screen.endOfLogicalLine(current.commandStart)
          current.command = this.screen.textBetween(current.commandStart, current.commandEnd)
        }
        return undefined
      case "Ignored":
        return undefined
    }
  }

  /** Marks whose prompt line still exists (older ones scrolled out of the history), oldest first. */
  list(): ReadonlyArray<PromptMark> {
    const overflow = this.screen.overflow
    return this.marks.filter((m) => m.promptStart.y >= overflow)
  }

  last(): PromptMark | undefined {
    const list = this.list()
    return list[list.length - 1]
  }

  byId(id: string): PromptMark | undefined {
    return this.list().find((m) => m.id === id)
  }

  /** The command line being edited at the current prompt; null while a command runs or before any prompt. */
  currentCommand(): string | null {
    const last = this.last()
    if (last?.commandStart == null || last.phase !== "editing") return null
    return this.screen.textBetween(last.commandStart, this.screen.endOfLogicalLine(last.commandStart))
  }

  /** The GetPromptResponse iTerm2 builds for `mark` now (output_range.end = current cursor). */
  response(mark: PromptMark, sessionDirectory: string | null): GetPromptResponse {
    const commandRange =
      mark.commandStart === null
        ? undefined
        : {
            start: mark.commandStart,
            end: mark.commandEnd ?? this.screen.endOfLogicalLine(mark.commandStart)
          }
    // iTerm2 answers `mark.fullCommand ?: self.currentCommand` (PTYSession.m getPromptResponseForMark:):
    // a mark gets its command only when a non-blank command starts (with its output start,
    // VT100ScreenMutableState commandDidEndWithRange:); any other mark reports the command line
    // being edited at the session's current prompt (none while a command runs).
    const command = mark.outputStart !== null ? mark.command : this.currentCommand()
    const directory = mark.workingDirectory ?? sessionDirectory
    return {
      status: "OK",
      ...(mark.commandStart === null
        ? {}
        : { prompt_range: { start: mark.promptStart, end: mark.commandStart } }),
      ...(commandRange === undefined ? {} : { command_range: commandRange }),
      ...(mark.outputStart === null
        ? {}
        : { output_range: { start: mark.outputStart, end: this.screen.cursor() } }),
      ...(directory === null ? {} : { working_directory: directory }),
      ...(command === null ? {} : { command }),
      prompt_state: promptState(mark),
      ...(mark.exitCode === null ? {} : { exit_status: mark.exitCode }),
      unique_prompt_id: mark.id
    }
  }
}

const newMark = (at: Pos, workingDirectory: string | null): PromptMark => ({
  id: randomUUID().toUpperCase(),
  promptStart: at,
  workingDirectory,
  commandStart: null,
  commandEnd: null,
  command: null,
  outputStart: null,
  exitCode: null,
  phase: "prompt"
})

/** iTerm2's derivation: has a code → FINISHED; output started → RUNNING; else EDITING. */
const promptState = (mark: PromptMark): PromptState =>
  mark.exitCode !== null ? "FINISHED" : mark.outputStart !== null ? "RUNNING" : "EDITING"
