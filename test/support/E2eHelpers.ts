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
  readonly hosts_this_client: boolean
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
  readonly transport_exit_code: number | null
  readonly output: string | null
  readonly truncated: boolean
  readonly output_line_count: number
  readonly total_output_lines: number | null
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

export const typed = async <A>(mcp: McpHarness, name: string, args: Record<string, unknown>) =>
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
    .callTool(
      { name, arguments: args },
      {
        onprogress: (p) => progress.push({ progress: p.progress, message: p.message, at: Date.now() }),
        ...(signal === undefined ? {} : { signal }),
        timeout: 120_000
      }
    )
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

/**
 * At an idle prompt: a since read with nothing new returns nothing (the prompt row is not repeated),
 * twice over; once the person types at the prompt, that one row comes back with what they typed.
 * `typeAtPrompt` types text without Enter and waits until it is on the screen (it is left there:
 * use a session of its own).
 */
export const expectNothingNewAtPrompt = async (
  mcp: McpHarness,
  sessionId: string,
  typeAtPrompt: (text: string) => Promise<void>
): Promise<void> => {
  await waitForReadiness(mcp, sessionId, "ready")
  const first = await readTerminal(mcp, { session_id: sessionId })
  expect(first.data.content.split("\n").at(-1)).toMatch(/\S/)
  const idle = await readTerminal(mcp, { session_id: sessionId, since: first.data.cursor })
  expect(idle.data).toMatchObject({ content: "", line_count: 0, truncated: false, cursor_lost: false })
  const again = await readTerminal(mcp, { session_id: sessionId, since: idle.data.cursor })
  expect(again.data).toMatchObject({ content: "", line_count: 0, cursor_lost: false })
  await typeAtPrompt("echo typed-at-prompt")
  const typed = await readTerminal(mcp, { session_id: sessionId, since: again.data.cursor })
  expect(typed.data).toMatchObject({ line_count: 1, cursor_lost: false })
  expect(typed.data.content).toMatch(/\S.*echo typed-at-prompt$/)
}

/**
 * Every one-character edit of a real cursor of `sessionId` (each position, a different base64url
 * character) is `invalid_request` with the not-a-cursor message; `reads`, when given, counts the
 * reads that reached the terminal, which must not grow.
 */
export const expectEditedCursorsRefused = async (
  mcp: McpHarness,
  sessionId: string,
  cursor: string,
  reads: () => number = () => 0
): Promise<void> => {
  const before = reads()
  for (let i = 0; i < cursor.length; i++) {
    const edited = cursor.slice(0, i) + (cursor[i] === "A" ? "B" : "A") + cursor.slice(i + 1)
    const result = await readTerminal(mcp, { session_id: sessionId, since: edited })
    expect(result.isError, `cursor edited at ${i}`).toBe(true)
    expect(result.data).toMatchObject({ error_code: "invalid_request" })
    expect(String((result.data as unknown as { message: string }).message)).toMatch(/not a cursor returned/)
  }
  expect(reads()).toBe(before)
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

/**
 * Waits until TermPilot has seen the command of `requestId` start (its start mark or event):
 * get_command_result reports output so far from then on, and interrupt_command acts on it. The
 * program may hold the terminal a moment before TermPilot has read that mark.
 */
export const waitForStart = async (mcp: McpHarness, requestId: string, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const now = await commandResult(mcp, { request_id: requestId })
    if (now.data.output !== null) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`TermPilot did not see request ${requestId} start within ${timeoutMs} ms`)
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
