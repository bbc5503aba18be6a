/**
 * The iTerm2 backend's pure prompt rules (src/domain/iterm2/): the readiness a GetPrompt reply
 * gives, the interrupt verdict on a session's last prompt, and where a command's output ends.
 * Fail closed: whatever iTerm2 leaves out makes a session not ready and an interrupt refused.
 */
import { describe, expect, it } from "vitest"
import { interruptVerdict } from "../../../src/domain/iterm2/InterruptVerdict.js"
import {
  clampToPrompt,
  lastRowBefore,
  outputWindow,
  plausibleNextStart,
  rowCount
} from "../../../src/domain/iterm2/OutputRange.js"
import { commandLineEmpty, promptReadiness } from "../../../src/domain/iterm2/PromptReadiness.js"
import type { GetPromptResponse } from "../../../src/generated/iterm2/Iterm2Messages.js"

const at = (x: number, y: number) => ({ x, y })
const prompt = (fields: Partial<GetPromptResponse>): GetPromptResponse => ({ status: "OK", ...fields })

describe("promptReadiness", () => {
  const editing = (start: { x: number; y: number }, end: { x: number; y: number }) =>
    prompt({ prompt_state: "EDITING", unique_prompt_id: "p1", command_range: { start, end } })

  it("is ready only at an EDITING prompt whose command line is known and empty", () => {
    expect(promptReadiness(editing(at(2, 10), at(2, 10)), false)).toBe("ready")
    expect(promptReadiness(editing(at(2, 10), at(7, 10)), false)).toBe("input_pending")
  })

  it("is unknown when iTerm2 leaves out any coordinate of the command line", () => {
    const noEnd = prompt({ prompt_state: "EDITING", command_range: { start: at(2, 10) } })
    const noColumn = prompt({ prompt_state: "EDITING", command_range: { start: { y: 10 }, end: at(2, 10) } })
    expect(promptReadiness(noEnd, false)).toBe("unknown")
    expect(promptReadiness(noColumn, false)).toBe("unknown")
    expect(commandLineEmpty(undefined)).toBeNull()
  })

  it("is busy while a command runs or before the next prompt, interactive on the alternate screen", () => {
    expect(promptReadiness(prompt({ prompt_state: "RUNNING" }), false)).toBe("busy")
    expect(promptReadiness(prompt({ prompt_state: "FINISHED" }), false)).toBe("busy")
    // vim over an empty prompt: the keys would go to vim.
    expect(promptReadiness(editing(at(2, 10), at(2, 10)), true)).toBe("interactive")
    expect(promptReadiness(editing(at(2, 10), at(2, 10)), 1)).toBe("interactive")
  })

  it("asks for shell integration when there is no prompt at all, interactive when it has no state", () => {
    expect(promptReadiness(undefined, false)).toBe("shell_integration_required")
    expect(promptReadiness(prompt({ unique_prompt_id: "p1" }), false)).toBe("interactive")
  })
})

describe("interruptVerdict", () => {
  it("sends the ETX only to that very prompt while it runs", () => {
    expect(interruptVerdict(prompt({ unique_prompt_id: "p1", prompt_state: "RUNNING" }), "p1")).toEqual({
      _tag: "Send"
    })
  })

  it("answers without sending when the command ended, a newer prompt is drawn, or it never started", () => {
    const running = prompt({ unique_prompt_id: "p2", prompt_state: "RUNNING" })
    expect(interruptVerdict(running, "p1")).toEqual({ _tag: "Answer", check: "ended" })
    expect(interruptVerdict(prompt({ unique_prompt_id: "p1", prompt_state: "FINISHED" }), "p1")).toEqual({
      _tag: "Answer",
      check: "ended"
    })
    expect(interruptVerdict(prompt({ unique_prompt_id: "p1", prompt_state: "EDITING" }), "p1")).toEqual({
      _tag: "Answer",
      check: "not_started"
    })
  })

  it("refuses when the prompt cannot be identified", () => {
    for (const last of [undefined, prompt({ prompt_state: "RUNNING" }), prompt({ unique_prompt_id: "p1" })]) {
      expect(interruptVerdict(last, "p1")).toMatchObject({ _tag: "Refuse", code: "command_not_running" })
    }
  })
})

describe("where a command's output ends", () => {
  it("clamps the reported end to the next prompt when that starts first", () => {
    const next = prompt({ prompt_range: { start: at(0, 20), end: at(2, 20) } })
    expect(clampToPrompt(at(5, 24), next)).toEqual(at(0, 20))
    expect(clampToPrompt(at(5, 18), next)).toEqual(at(5, 18))
    expect(clampToPrompt(at(5, 24), undefined)).toEqual(at(5, 24))
  })

  it("excludes the row of an end at column 0", () => {
    expect(lastRowBefore(at(0, 20))).toBe(19)
    expect(lastRowBefore(at(3, 20))).toBe(20)
    expect(rowCount(at(0, 12), at(0, 20))).toBe(8)
    expect(rowCount(at(0, 12), at(0, 12))).toBe(0)
  })

  it("uses a notified next-prompt start only when it is not before the output", () => {
    expect(plausibleNextStart(at(0, 20), at(0, 12))).toBe(true)
    expect(plausibleNextStart(at(0, 11), at(0, 12))).toBe(false)
    expect(plausibleNextStart(undefined, at(0, 12))).toBe(false)
  })

  it("fetches only the newest rows a bounded read may return", () => {
    const span = { start: at(0, 100), end: at(0, 1100), complete: true }
    expect(outputWindow(span, 200)).toEqual({ first: 900, end: 1100 })
    expect(outputWindow({ start: at(0, 100), end: at(0, 100), complete: true }, 200)).toBeNull()
  })
})
