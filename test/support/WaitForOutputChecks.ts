/**
 * The wait_for_output contract both backends keep, end to end over a real shell: a pattern printed
 * after 2 s answers `matched` after about 2 s with the line; a burst then silence answers `quiet`;
 * a command's end answers `command_ended` with its exit code; a client's cancel stops the wait
 * within 0.5 s (the audit trail's time); a pattern that is exponential for a backtracking engine
 * answers within the wait's bound. Each wait runs inside `nothingSent`, the backend's own proof
 * (recorders, SendText ledger) that the wait sent nothing. The commands that make the output are
 * started with run_command before that proof begins.
 */
import { expect } from "vitest"
import {
  auditLines,
  callWithProgress,
  commandResult,
  interruptCommand,
  readTerminal,
  runCommand
} from "./E2eHelpers.js"
import { call } from "./FakeIterm2Backend.js"
import type { McpHarness } from "./McpHarness.js"
import { waitUntil } from "./tmux/Recorder.js"

export interface WaitView {
  readonly session_id: string
  readonly stopped: string
  readonly matched_line: string | null
  readonly exit_code: number | null
  readonly command_end_watched: boolean
  readonly content: string
  readonly line_count: number
  readonly truncated: boolean
  readonly execution_readiness: string
  readonly waited_ms: number
  readonly cursor: string
  readonly cursor_lost: boolean
}

export interface WaitRig {
  readonly mcp: McpHarness
  /** Runs `action` and proves, from what the terminal received, that nothing reached it meanwhile. */
  readonly nothingSent: <A>(action: () => Promise<A>) => Promise<A>
  /**
   * Resolves once `command` and Enter, which TermPilot answered `submitted` for, have reached the
   * session's terminal (so they are not taken for bytes sent during the wait); absent where the
   * send is recorded before the answer.
   */
  readonly typed?: (sessionId: string, command: string) => Promise<void>
}

export const waitForOutput = async (mcp: McpHarness, args: Record<string, unknown>) => {
  const started = Date.now()
  const result = await call(mcp, "wait_for_output", args)
  expect(result.isError, JSON.stringify(result.data)).toBe(false)
  return { data: result.data as unknown as WaitView, tookMs: Date.now() - started }
}

/** Starts `command` with run_command (not waiting) and returns its request_id. */
const start = async (rig: WaitRig, sessionId: string, command: string): Promise<string> => {
  const sent = await runCommand(rig.mcp, { session_id: sessionId, command, wait_for_completion: false })
  expect(sent.data, JSON.stringify(sent.data)).toMatchObject({ status: "submitted", sent: true })
  await rig.typed?.(sessionId, command)
  return sent.data.request_id
}

/** Stops a command started by `start` (Ctrl-C through interrupt_command) and waits for its end. */
const stop = async (mcp: McpHarness, requestId: string) => {
  const stopped = await interruptCommand(mcp, { request_id: requestId, wait_seconds: 10 })
  expect(stopped.data).toMatchObject({ status: "completed" })
}

export const expectMatchedAfterTwoSeconds = async (rig: WaitRig, sessionId: string) => {
  // $((6*7)): the echoed command line itself never contains the pattern.
  const requestId = await start(rig, sessionId, "sleep 2; echo READY-$((6*7)) on port 8080; sleep 30")
  const { data, tookMs } = await rig.nothingSent(() =>
    waitForOutput(rig.mcp, { session_id: sessionId, pattern: "READY-42", timeout_seconds: 20 })
  )
  expect(data).toMatchObject({ stopped: "matched", matched_line: "READY-42 on port 8080", exit_code: null })
  expect(data.content.split("\n")).toContain("READY-42 on port 8080")
  expect(data.waited_ms).toBeGreaterThanOrEqual(1500)
  expect(tookMs).toBeLessThan(10_000)
  // The cursor goes on from there: nothing new since it.
  const after = await readTerminal(rig.mcp, { session_id: sessionId, since: data.cursor })
  expect(after.data.content).not.toContain("READY-42")
  await stop(rig.mcp, requestId)
}

export const expectQuietAfterBurst = async (rig: WaitRig, sessionId: string) => {
  // Ten lines over about a second, starting 0.5 s in, then nothing.
  const requestId = await start(
    rig,
    sessionId,
    "sleep 0.5; for i in $(seq 1 10); do echo burst-$i; sleep 0.1; done; sleep 30"
  )
  const { data } = await rig.nothingSent(() =>
    waitForOutput(rig.mcp, { session_id: sessionId, quiet_seconds: 1.5, timeout_seconds: 20 })
  )
  expect(data).toMatchObject({ stopped: "quiet", matched_line: null })
  // Quiet counts from the last line (about 1.5 s in), not from the call's start (that would be 1.5 s).
  expect(data.waited_ms).toBeGreaterThanOrEqual(2500)
  const lines = data.content.split("\n")
  expect(lines).toContain("burst-1")
  expect(lines).toContain("burst-10")
  await stop(rig.mcp, requestId)
}

export const expectCommandEnded = async (rig: WaitRig, sessionId: string) => {
  const requestId = await start(rig, sessionId, "sleep 1.5; echo finishing; (exit 3)")
  const { data } = await rig.nothingSent(() =>
    waitForOutput(rig.mcp, { session_id: sessionId, pattern: "never-printed", timeout_seconds: 20 })
  )
  expect(data).toMatchObject({ stopped: "command_ended", exit_code: 3, command_end_watched: true })
  expect(data.content.split("\n")).toContain("finishing")
  const done = await commandResult(rig.mcp, { request_id: requestId, wait_seconds: 10 })
  expect(done.data).toMatchObject({ status: "completed", exit_code: 3 })
}

/** The audit trail's lines of one tool (written when a call answers). */
const audited = (auditPath: string, tool: string) =>
  auditLines(auditPath).filter((line) => line.tool === tool)

export const expectCancelStopsQuickly = async (rig: WaitRig, sessionId: string, auditPath: string) => {
  const requestId = await start(rig, sessionId, "sleep 30")
  const before = audited(auditPath, "wait_for_output").length
  await rig.nothingSent(async () => {
    const abort = new AbortController()
    const waiting = callWithProgress(
      rig.mcp,
      "wait_for_output",
      { session_id: sessionId, pattern: "never-printed", timeout_seconds: 60 },
      abort.signal
    )
    const rejected = waiting.answer.then(
      () => "answered",
      () => "rejected"
    )
    await waitUntil("a first progress notification", () => waiting.progress.length > 0, 10_000)
    expect(waiting.progress[0]?.message).toMatch(/waiting for output/)
    const cancelledAt = Date.now()
    abort.abort("the user changed their mind")
    expect(await rejected).toBe("rejected")
    await waitUntil(
      "the wait_for_output audit line",
      () => audited(auditPath, "wait_for_output").length > before
    )
    const line = audited(auditPath, "wait_for_output")[before]
    expect(line).toMatchObject({ session_id: sessionId })
    expect(Date.parse(String(line?.time)) - cancelledAt).toBeLessThan(500)
    const progressAtCancel = waiting.progress.length
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(waiting.progress.length, "progress after the cancel").toBe(progressAtCancel)
  })
  await stop(rig.mcp, requestId)
}

export const expectPathologicalPatternBounded = async (rig: WaitRig, sessionId: string) => {
  const from = (await readTerminal(rig.mcp, { session_id: sessionId, max_lines: 1 })).data.cursor
  // 60 a's then b: (a+)+$ tries 2^60 ways on a backtracking engine; the line does not match.
  const requestId = await start(rig, sessionId, "sleep 0.5; printf '%060d' 0 | tr 0 a; echo b; sleep 30")
  const line = `${"a".repeat(60)}b`
  const { data, tookMs } = await rig.nothingSent(() =>
    waitForOutput(rig.mcp, { session_id: sessionId, pattern: "(a+)+$", regex: true, timeout_seconds: 3 })
  )
  expect(data.stopped).toBe("timed_out")
  expect(data.content.split("\n")).toContain(line)
  expect(tookMs).toBeLessThan(8_000)
  // From a cursor taken before the command, the line (written before this call) counts as new,
  // and a pattern that does match it answers at once.
  const { data: again, tookMs: againMs } = await rig.nothingSent(() =>
    waitForOutput(rig.mcp, { session_id: sessionId, pattern: "^(a+)+b$", regex: true, since: from })
  )
  expect(again).toMatchObject({ stopped: "matched", matched_line: line })
  expect(againMs).toBeLessThan(5_000)
  await stop(rig.mcp, requestId)
}
