/**
 * wait_for_output through the real MCP client over a RecordingBackend: arguments and patterns it
 * refuses reach no backend at all; lines are matched on the text as the model is shown it (a
 * secret is redacted before any pattern sees it); without shell integration it still waits; a
 * command-end event ends it with the exit code; a lost backend is its unavailable code.
 */
import { Effect, Queue } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { boundTail } from "../../src/domain/TextBounds.js"
import { fail } from "../../src/services/Errors.js"
import type { PromptEvent } from "../../src/services/PromptTracker.js"
import type { CursorPosition, Snapshot } from "../../src/services/Terminal.js"
import { encodeCursor } from "../../src/tools/Cursors.js"
import { type McpHarness, openMcpHarness } from "../support/McpHarness.js"
import { makeRecordingBackend, type Overrides, SESSION_ID } from "../support/RecordingBackend.js"

/** Every harness a test opened; all are closed after it. */
const opened: Array<McpHarness> = []
afterEach(async () => {
  for (const h of opened.splice(0)) await h.close()
})

const open = async (overrides: Overrides = {}) => {
  const backend = makeRecordingBackend(overrides)
  const h = await openMcpHarness(backend.layer)
  opened.push(h)
  await h.client.listTools()
  const client = h.client
  const wait = async (args: Record<string, unknown>) => {
    const result = await client.callTool({ name: "wait_for_output", arguments: args })
    return { isError: result.isError === true, data: result.structuredContent as Record<string, unknown> }
  }
  return { backend, wait }
}

/**
 * A session that, from its second look on, has printed `lines` on the row after the start: a read
 * without `since` (the wait's first) leaves the cursor at row 10, any later read moves it to 11.
 */
const printing = (lines: ReadonlyArray<string>): Overrides => {
  let reads = 0
  return {
    terminal: {
      read: (_id, bounds, since?: CursorPosition) =>
        Effect.sync((): Snapshot => {
          reads++
          const later = reads > 1
          const text = boundTail(since === undefined || !later ? [] : lines, bounds)
          return {
            ...text,
            readiness: "busy",
            cursor: { row: later ? 11 : 10, anchor: null, rowDigest: null },
            cursorLost: false
          }
        })
    }
  }
}

describe("refused before anything is read", () => {
  const otherCursor = encodeCursor("another-session", { row: 1, anchor: null, rowDigest: null })
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>, RegExp]> = [
    ["a backreference", { pattern: "(a)\\1", regex: true }, /pattern is not supported: \\1/],
    ["lookahead", { pattern: "x(?=y)", regex: true }, /lookaround/],
    ["a count over 100", { pattern: "a{500}", regex: true }, /at most 100/],
    ["257 characters", { pattern: "x".repeat(257) }, /pattern must be a string of 1 to 256/],
    ["an empty pattern", { pattern: "" }, /pattern must be a string of 1 to 256/],
    ["a newline", { pattern: "a\nb" }, /without control characters/],
    ["quiet_seconds 0", { quiet_seconds: 0 }, /quiet_seconds must be a number greater than 0/],
    [
      "timeout_seconds 301",
      { timeout_seconds: 301 },
      /timeout_seconds must be a number greater than 0 and at most 300/
    ],
    ["regex as a string", { pattern: "x", regex: "true" }, /regex must be a boolean/],
    ["another session's cursor", { since: otherCursor }, /cursor of another session/],
    ["an unknown argument", { command: "ls" }, /command is not a known argument/]
  ]
  it.each(cases)("%s is invalid_request", async (_, args, message) => {
    const { backend, wait } = await open()
    const result = await wait({ session_id: SESSION_ID, ...args })
    expect(result.isError).toBe(true)
    expect(result.data.error_code).toBe("invalid_request")
    expect(String(result.data.message)).toMatch(message)
    expect(backend.calls()).toEqual([])
  })
})

describe("what the wait sees", () => {
  it("matches a new line, on the text as shown, and only reads and watches", async () => {
    const { backend, wait } = await open(printing(["compiling", "webpack compiled successfully in 812 ms"]))
    const result = await wait({ session_id: SESSION_ID, pattern: "compiled SUCCESSFULLY", ignore_case: true })
    expect(result.data).toMatchObject({
      stopped: "matched",
      matched_line: "webpack compiled successfully in 812 ms",
      command_end_watched: true,
      exit_code: null
    })
    const methods = new Set(backend.calls().map((c) => `${c.service}.${c.method}`))
    expect([...methods].sort()).toEqual(["PromptTracker.watch", "Terminal.read"])
  })

  it("a secret is redacted before the pattern sees it", async () => {
    const key = "AKIAABCDEFGHIJKLMNOP"
    const { wait } = await open(printing([`export AWS_ACCESS_KEY_ID=${key}`]))
    const probing = await wait({ session_id: SESSION_ID, pattern: "AKIAABCD", timeout_seconds: 0.6 })
    expect(probing.data).toMatchObject({ stopped: "timed_out", matched_line: null })
    expect(String(probing.data.content)).not.toContain(key)
    const { wait: again } = await open(printing([`export AWS_ACCESS_KEY_ID=${key}`]))
    const shown = await again({ session_id: SESSION_ID, pattern: "[REDACTED:", timeout_seconds: 5 })
    expect(shown.data.stopped).toBe("matched")
    expect(String(shown.data.matched_line)).not.toContain(key)
  })

  it("matched_line is bounded like content: at most max_chars, its end kept", async () => {
    const long = `${"x".repeat(500)} build DONE`
    const { wait } = await open(printing([long]))
    const result = await wait({ session_id: SESSION_ID, pattern: "DONE", max_chars: 100 })
    expect(result.data.stopped).toBe("matched")
    expect(result.data.matched_line).toBe(long.slice(-100))
    expect(result.data.content).toBe(long.slice(-100))
  })

  it("without shell integration it still waits, for quiet here, and says command ends are not seen", async () => {
    const { wait } = await open({
      tracker: { watch: () => Effect.fail(fail("shell_integration_required", "no marks")) }
    })
    const result = await wait({ session_id: SESSION_ID, quiet_seconds: 0.3, timeout_seconds: 5 })
    expect(result.data).toMatchObject({ stopped: "quiet", command_end_watched: false })
  })

  it("a command-end event ends it with the exit code; a lost backend is its unavailable code", async () => {
    const events = (event: PromptEvent) => ({
      watch: () =>
        Effect.gen(function* () {
          const queue = yield* Effect.acquireRelease(Queue.unbounded<PromptEvent>(), Queue.shutdown)
          yield* Effect.forkScoped(Effect.delay(Queue.offer(queue, event), "300 millis"))
          return queue
        })
    })
    const ended = await open({ tracker: events({ _tag: "CommandEnd", promptId: "4", exitCode: 2 }) })
    const result = await ended.wait({ session_id: SESSION_ID, timeout_seconds: 10 })
    expect(result.data).toMatchObject({ stopped: "command_ended", exit_code: 2 })

    const lost = await open({
      tracker: events({
        _tag: "Lost",
        message: "The connection to iTerm2 dropped.",
        code: "iterm2_unavailable"
      })
    })
    const failed = await lost.wait({ session_id: SESSION_ID, timeout_seconds: 10 })
    expect(failed).toMatchObject({ isError: true, data: { error_code: "iterm2_unavailable" } })
  })

  it("an unknown session is session_not_found", async () => {
    const { wait } = await open()
    const result = await wait({ session_id: "w9t9p9:NOPE", timeout_seconds: 1 })
    expect(result).toMatchObject({ isError: true, data: { error_code: "session_not_found" } })
  })
})
