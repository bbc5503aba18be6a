/**
 * Shared helpers for the robustness suites: a fake-iTerm2 rig with short timeouts that is always
 * closed, typed-error assertions on tool results, and bounded polling (every wait here ends).
 */
import { expect } from "vitest"
import type { TermPilotConfig } from "../../src/domain/ConfigFile.js"
import type { Iterm2Settings } from "../../src/services/AppConfig.js"
import { call, type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

/** Request and connect timeouts short enough that a never-answered request fails fast. */
export const SHORT_TIMEOUTS = { requestTimeoutMs: 500, connectTimeoutMs: 500 } as const

export type ToolResult = Awaited<ReturnType<typeof call>>

/** Opens a rig, runs `body`, and closes the rig whatever happens. */
export const withRig = async <A>(
  body: (rig: FakeIterm2Rig) => Promise<A>,
  settings: Partial<Iterm2Settings> = SHORT_TIMEOUTS,
  config?: Partial<TermPilotConfig>
): Promise<A> => {
  const rig = await openFakeIterm2Rig(config === undefined ? { settings } : { settings, config })
  try {
    return await body(rig)
  } finally {
    await rig.close()
  }
}

/** A failed call carrying the ToolError `{ error_code: code, message }` with a non-empty message. */
export const expectToolError = (result: ToolResult, code: string, message?: RegExp): string => {
  expect(result.isError, JSON.stringify(result.data)).toBe(true)
  expect(result.data.error_code).toBe(code)
  const text = result.data.message
  expect(typeof text === "string" && text.length > 0).toBe(true)
  if (message !== undefined) expect(text).toMatch(message)
  return text as string
}

/** A run_command/get_command_result result with this status, sent flag and error code. */
export const expectCommand = (
  result: ToolResult,
  expected: { readonly status: string; readonly sent: boolean; readonly error_code: string | null }
): void => {
  expect(
    {
      status: result.data.status,
      sent: result.data.sent,
      error_code: result.data.error_code
    },
    JSON.stringify(result.data)
  ).toEqual(expected)
  expect(result.isError).toBe(expected.status === "rejected" || expected.status === "error")
}

/** A session listing works and names `sessionId` (the server kept answering). */
export const expectHealthy = async (rig: FakeIterm2Rig, sessionId?: string): Promise<void> => {
  const listed = await call(rig.mcp, "list_sessions")
  expect(listed.isError, JSON.stringify(listed.data)).toBe(false)
  if (sessionId !== undefined) {
    const ids = (listed.data.sessions as Array<{ session_id: string }>).map((s) => s.session_id)
    expect(ids).toContain(sessionId)
  }
  expect((await rig.mcp.client.listTools()).tools.length).toBeGreaterThan(0)
}

/** Polls `check` every 10 ms until it holds; throws after `timeoutMs`. */
export const until = async (what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * Calls list_sessions until its error message matches `message` (the client has noticed the drop),
 * checking that every failure on the way is a typed iterm2_unavailable. Bounded by `attempts`.
 */
export const untilUnavailableWith = async (
  rig: FakeIterm2Rig,
  message: RegExp,
  attempts = 50
): Promise<string> => {
  for (let i = 0; i < attempts; i++) {
    const result = await call(rig.mcp, "list_sessions")
    const text = expectToolError(result, "iterm2_unavailable")
    if (message.test(text)) return text
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`list_sessions never failed with ${message} in ${attempts} attempts`)
}

export { call }
