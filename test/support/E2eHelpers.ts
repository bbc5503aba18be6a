/**
 * Small helpers for the end-to-end suites (test/e2e): typed tool calls over the fake-iTerm2 rig,
 * bounded polling of a session's readiness through the tools themselves, and "nothing was typed"
 * checks against the fake's SendText ledger.
 */
import { readFileSync } from "node:fs"
import { expect } from "vitest"
import type { FakeWorld } from "../fakes/iterm2/FakeWorld.js"
import { call } from "./FakeIterm2Backend.js"
import type { McpHarness } from "./McpHarness.js"

/** SessionInfo as the tools return it (structuredContent). */
export interface SessionView {
  readonly session_id: string
  readonly backend: string
  readonly window_id: string | null
  readonly tab_id: string | null
  readonly window_number: number | null
  readonly window_title: string | null
  readonly tab_title: string | null
  readonly session_title: string | null
  readonly hostname: string | null
  readonly username: string | null
  readonly cwd: string | null
  readonly via: ReadonlyArray<string> | null
  readonly tty: string | null
  readonly job_name: string | null
  readonly is_current: boolean
  readonly buried: boolean
  readonly execution_readiness: string
}

/** CommandResult as run_command / get_command_result return it. */
export interface CommandView {
  readonly request_id: string
  readonly session_id: string
  readonly command: string
  readonly status: string
  readonly sent: boolean
  readonly exit_code: number | null
  readonly output: string | null
  readonly truncated: boolean
  readonly output_line_count: number
  readonly started_at: string
  readonly finished_at: string | null
  readonly duration_ms: number | null
  readonly error_code: string | null
  readonly message: string | null
}

/** interrupt_command's result: the command's result as it stands, and whether the ETX was sent. */
export interface InterruptView extends Omit<CommandView, "status"> {
  readonly status: string
  readonly interrupt_sent: boolean
}

export interface ReadView {
  readonly session_id: string
  readonly content: string
  readonly line_count: number
  readonly truncated: boolean
  readonly execution_readiness: string
  readonly captured_at: string
  readonly cursor: string
  readonly cursor_lost: boolean
}

export interface Called<A> {
  readonly isError: boolean
  readonly data: A
}

const typed = async <A>(mcp: McpHarness, name: string, args: Record<string, unknown>) =>
  (await call(mcp, name, args)) as unknown as Called<A>

export const listSessions = async (mcp: McpHarness): Promise<ReadonlyArray<SessionView>> => {
  const result = await typed<{ sessions: ReadonlyArray<SessionView> }>(mcp, "list_sessions", {})
  expect(result.isError, JSON.stringify(result.data)).toBe(false)
  return result.data.sessions
}

/** The listed session with exactly this id (fails the test when it is missing). */
export const listed = async (mcp: McpHarness, sessionId: string): Promise<SessionView> => {
  const found = (await listSessions(mcp)).find((s) => s.session_id === sessionId)
  expect(found, `${sessionId} in list_sessions`).toBeDefined()
  return found as SessionView
}

export const currentSession = (mcp: McpHarness) => typed<SessionView>(mcp, "get_current_session", {})

export const readTerminal = (mcp: McpHarness, args: Record<string, unknown>) =>
  typed<ReadView>(mcp, "read_terminal", args)

export const runCommand = (mcp: McpHarness, args: Record<string, unknown>) =>
  typed<CommandView>(mcp, "run_command", args)

export const commandResult = (mcp: McpHarness, args: Record<string, unknown>) =>
  typed<CommandView>(mcp, "get_command_result", args)

export const interruptCommand = (mcp: McpHarness, args: Record<string, unknown>) =>
  typed<InterruptView>(mcp, "interrupt_command", args)

/** One progress notification as the client saw it, and when. */
export interface SeenProgress {
  readonly progress: number
  readonly message: string | undefined
  readonly at: number
}

/**
 * A tool call with a progressToken (the SDK adds one for `onprogress`) and an optional abort
 * signal (the SDK sends notifications/cancelled on abort). Progress seen after the answer is kept
 * in `progress` too: callers check that none came.
 */
export const callWithProgress = (
  mcp: McpHarness,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal
) => {
  const progress: Array<SeenProgress> = []
  const answer = mcp.client
    .callTool({ name, arguments: args }, undefined, {
      onprogress: (p) => progress.push({ progress: p.progress, message: p.message, at: Date.now() }),
      ...(signal === undefined ? {} : { signal }),
      timeout: 120_000
    })
    .then((result) => ({
      isError: result.isError === true,
      data: (result.structuredContent ?? {}) as Record<string, unknown>,
      at: Date.now()
    }))
  return { progress, answer }
}

/** The request_id a progress message names ("request_id <32 hex>: …"). */
export const requestIdOf = (message: string | undefined): string | undefined =>
  /request_id ([0-9a-f]{32})/.exec(message ?? "")?.[1]

/**
 * The progress contract on one backend: a 5 s run_command with a progressToken gets 3 to 7
 * notifications, `progress` increasing, each naming the request_id, some with output line counts,
 * and none after the answer (looked for again 1.5 s later).
 */
export const expectSteadyProgress = async (mcp: McpHarness, sessionId: string): Promise<void> => {
  const call = callWithProgress(mcp, "run_command", {
    session_id: sessionId,
    command: "for i in 1 2 3 4 5; do echo tick-$i; sleep 1; done",
    timeout_seconds: 30
  })
  const answer = await call.answer
  expect(answer.isError, JSON.stringify(answer.data)).toBe(false)
  expect(answer.data).toMatchObject({ status: "completed", exit_code: 0 })
  const seen = [...call.progress]
  expect(seen.length).toBeGreaterThanOrEqual(3)
  expect(seen.length).toBeLessThanOrEqual(7)
  for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress)
  for (const p of seen) expect(requestIdOf(p.message)).toBe(answer.data.request_id)
  // Lines so far are counted where the backend can tell: the later reports name some.
  expect(seen.some((p) => /output line/.test(p.message ?? ""))).toBe(true)
  await new Promise((resolve) => setTimeout(resolve, 1500))
  expect(call.progress.length, "notifications after the answer").toBe(seen.length)
  expect(call.progress.every((p) => p.at <= answer.at)).toBe(true)
}

/**
 * The contract both backends keep when more output came than the history holds: after a read,
 * 5,000 new lines, then a read `since` its cursor is `cursor_lost`, with the end of the output
 * (and the prompt after it), not its start, and no more than the history's `historyLines` (+ `slack`
 * rows of screen and prompt).
 */
export const expectCursorLostPastHistory = async (
  mcp: McpHarness,
  sessionId: string,
  historyLines: number,
  slack: number
): Promise<void> => {
  const first = await readTerminal(mcp, { session_id: sessionId })
  const ran = await runCommand(mcp, { session_id: sessionId, command: "seq -f 'big-%g' 1 5000" })
  expect(ran.data).toMatchObject({ status: "completed", exit_code: 0 })
  const next = await readTerminal(mcp, { session_id: sessionId, since: first.data.cursor, max_lines: 2000 })
  expect(next.isError, JSON.stringify(next.data)).toBe(false)
  expect(next.data.cursor_lost).toBe(true)
  const lines = next.data.content.split("\n")
  expect(lines).toContain("big-5000")
  expect(lines).not.toContain("big-1")
  expect(lines.length).toBeLessThanOrEqual(historyLines + slack)
}

/** Polls read_terminal (bounded) until the session's readiness is `expected`. */
export const waitForReadiness = async (
  mcp: McpHarness,
  sessionId: string,
  expected: string,
  timeoutMs = 10_000
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  let last = "(none)"
  while (Date.now() < deadline) {
    const read = await readTerminal(mcp, { session_id: sessionId, max_lines: 1 })
    last = read.isError ? JSON.stringify(read.data) : read.data.execution_readiness
    if (last === expected) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${sessionId} did not become ${expected} within ${timeoutMs} ms (last: ${last})`)
}

/** Runs `action` and asserts the fake received no SendText at all meanwhile. */
export const expectNothingSent = async <A>(world: FakeWorld, action: () => Promise<A>): Promise<A> => {
  const before = world.ledger.all()
  const result = await action()
  expect(world.ledger.all().slice(before.length), "SendText requests during the action").toEqual([])
  expect(world.ledger.size).toBe(before.length)
  return result
}

/** A `rejected`, nothing-sent CommandResult with this error code. */
export const expectRejected = (result: Called<CommandView>, errorCode: string): void => {
  expect(result.isError, JSON.stringify(result.data)).toBe(true)
  expect(result.data).toMatchObject({
    status: "rejected",
    sent: false,
    error_code: errorCode,
    exit_code: null
  })
  expect(result.data.output).toBeNull()
}

/** `seq`-style numbered lines, e.g. numbered("line-", 1, 3) → ["line-1", "line-2", "line-3"]. */
export const numbered = (prefix: string, from: number, to: number): Array<string> =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`)

/** The audit trail's lines as written so far (none when the file is not there yet). */
export const auditLines = (auditPath: string): Array<Record<string, unknown>> => {
  let text = ""
  try {
    text = readFileSync(auditPath, "utf8")
  } catch {
    return []
  }
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/**
 * The audit lines whose `key` (request_id by default) is `value`, once at least `count` are
 * written (the writer is asynchronous); after 5 s, whatever is there.
 */
export const awaitAuditLines = async (
  auditPath: string,
  value: string,
  count: number,
  key: "request_id" | "session_id" = "request_id"
): Promise<Array<Record<string, unknown>>> => {
  const deadline = Date.now() + 5000
  for (;;) {
    const lines = auditLines(auditPath).filter((line) => line[key] === value)
    if (lines.length >= count || Date.now() > deadline) return lines
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
