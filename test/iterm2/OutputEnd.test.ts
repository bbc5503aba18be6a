/**
 * Where an ended command's output ends on iTerm2: the pure rules (the next prompt's start from its
 * PROMPT notification, used only when it cannot be wrong for the range), and the backend reading
 * the output of a command whose next prompt nobody watched: no transaction, and the next prompt
 * asked for, with the same exact output.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clampToStart, plausibleNextStart } from "../../src/domain/iterm2/OutputRange.js"
import { promptDrawnAt } from "../../src/domain/iterm2/PromptNotice.js"
import type { GetPromptResponse, Notification } from "../../src/generated/iterm2/Iterm2Messages.js"
import { Terminal } from "../../src/services/Terminal.js"
import { type BackendRig, openBackendRig } from "./BackendRig.js"

const S = "5A888BEB-EE96-40A1-9C2F-14C2ACB47DF5"
const drawn = (prompt: GetPromptResponse): Notification => ({
  prompt_notification: { session: S, unique_prompt_id: "P2", prompt: { placeholder: "", prompt } }
})

describe("the next prompt's start from its notification", () => {
  it("is the prompt's start (else its command line's) of that session and prompt only", () => {
    const range = { start: { x: 0, y: 7 }, end: { x: 5, y: 7 } }
    expect(promptDrawnAt(S, drawn({ prompt_range: range, unique_prompt_id: "P2" }))).toEqual({
      promptId: "P2",
      start: { x: 0, y: 7 }
    })
    expect(promptDrawnAt(S, drawn({ command_range: { start: { x: 5, y: 7 } } }))).toEqual({
      promptId: "P2",
      start: { x: 5, y: 7 }
    })
    expect(promptDrawnAt("OTHER", drawn({ prompt_range: range }))).toBeUndefined()
    // A notification that names another prompt than it carries, or none (before iTerm2 3.5.0).
    expect(promptDrawnAt(S, drawn({ prompt_range: range, unique_prompt_id: "P3" }))).toBeUndefined()
    expect(
      promptDrawnAt(S, { prompt_notification: { session: S, unique_prompt_id: "P2", prompt: {} } })
    ).toBeUndefined()
    expect(
      promptDrawnAt(S, { prompt_notification: { session: S, unique_prompt_id: "P2", command_end: {} } })
    ).toBeUndefined()
  })

  it("is used only at or after the output's start, and clamps only an end past it", () => {
    const outputStart = { x: 0, y: 10 }
    expect(plausibleNextStart({ x: 0, y: 12 }, outputStart)).toBe(true)
    expect(plausibleNextStart({ x: 0, y: 10 }, outputStart)).toBe(true)
    expect(plausibleNextStart({ x: 3, y: 9 }, outputStart)).toBe(false)
    expect(plausibleNextStart(undefined, outputStart)).toBe(false)
    expect(clampToStart({ x: 4, y: 13 }, { x: 0, y: 12 })).toEqual({ x: 0, y: 12 })
    expect(clampToStart({ x: 0, y: 12 }, { x: 0, y: 13 })).toEqual({ x: 0, y: 12 })
    expect(clampToStart({ x: 0, y: 12 }, undefined)).toEqual({ x: 0, y: 12 })
  })
})

describe("an ended command's output with no watcher (iTerm2)", () => {
  let rig: BackendRig
  beforeAll(async () => {
    rig = await openBackendRig()
  })
  afterAll(async () => {
    await rig?.close()
  })

  it("is read without a transaction, asking for the next prompt; exact", async () => {
    const { sessionId } = await rig.world.createWindow()
    await rig.observe(sessionId)
    const { promptId } = await rig.run(
      Effect.flatMap(Terminal, (t) => t.submit(sessionId, "printf 'a\\nb\\n'; echo c"))
    )
    expect(await rig.commandEnd(sessionId, promptId!)).toBe(0)
    await rig.world.waitFor(sessionId, (shell) => shell.prompts.last()?.id !== promptId)
    // The claim's release (this rig has no prompt subscription: its poll) comes first, so that
    // only the read's own requests are counted.
    const session = rig.world.lookup(sessionId)!
    for (let waited = 0; session.userVars.has("user.termpilot_claim"); waited += 10) {
      if (waited > 5_000) throw new Error("the claim was never released")
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
    const mark = rig.server.requests.length
    const output = await rig.run(
      Effect.flatMap(Terminal, (t) =>
        t.commandOutput(sessionId, promptId!, { maxLines: 100, maxChars: 10_000 })
      )
    )
    expect(output).toMatchObject({ text: "a\nb\nc", lineCount: 3, truncated: false, totalLines: 3 })
    const kinds = rig.server.requests.slice(mark).map(({ request }) => Object.keys(request)[0])
    expect(kinds.sort()).toEqual([
      "get_buffer_request",
      "get_prompt_request",
      "get_prompt_request",
      "list_prompts_request"
    ])
  })
})
