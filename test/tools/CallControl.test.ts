/**
 * CallControl through the real MCP SDK client: a runner that reports progress reaches the client's
 * `onprogress` as increasing `notifications/progress` naming the request_id, never after the
 * answer and never without a progressToken; a client's cancellation completes `cancelled` for the
 * tools that handle it themselves (and their call is still audited) and interrupts the others.
 */
import { Deferred, Effect, Layer, Option, Queue } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { type AuditEvent, AuditLog } from "../../src/services/AuditLog.js"
import { CallControl } from "../../src/services/CallControl.js"
import type { CommandResult } from "../../src/services/CommandRunner.js"
import { type McpHarness, openMcpHarness } from "../support/McpHarness.js"
import {
  completedResult,
  interruptedResult,
  makeRecordingBackend,
  type Overrides,
  SESSION_ID
} from "../support/RecordingBackend.js"

const REQUEST_ID = "7f3c9a0b1d2e4f5a6b7c8d9e0f1a2b3c"

let harness: McpHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

/** The harness over a RecordingBackend, with an AuditLog that hands every event to a queue. */
const open = async (overrides: Overrides) => {
  const audited = Effect.runSync(Queue.unbounded<AuditEvent>())
  const audit = Layer.succeed(AuditLog, AuditLog.of({ record: (event) => Queue.offer(audited, event) }))
  const backend = makeRecordingBackend(overrides)
  harness = await openMcpHarness(Layer.merge(backend.layer, audit))
  await harness.client.listTools()
  const h = harness
  return {
    client: h.client,
    backend,
    run: <A>(effect: Effect.Effect<A>) => h.runPromise(effect),
    nextAudit: () => Effect.runPromise(Queue.take(audited)),
    auditedSoFar: (): ReadonlyArray<AuditEvent> => Effect.runSync(Queue.clear(audited))
  }
}

const control = Effect.map(Effect.serviceOption(CallControl), Option.getOrThrow)

const runRequest = {
  sessionId: SESSION_ID,
  command: "make test",
  waitForCompletion: true,
  timeoutSeconds: 30,
  maxOutputChars: 32768,
  maxOutputLines: 2000
}
const runningResult = (): CommandResult => ({ ...completedResult(runRequest), request_id: REQUEST_ID })

type Progress = { progress: number; total?: number | undefined; message?: string | undefined }

describe("progress notifications", () => {
  it("a runner's reports reach onprogress: increasing, naming the request_id, with output lines", async () => {
    const { client } = await open({
      runner: {
        run: () =>
          Effect.gen(function* () {
            const c = yield* control
            expect(c.wantsProgress).toBe(true)
            yield* c.progress({ requestId: REQUEST_ID, elapsedMs: 1_000, outputLines: null })
            yield* c.progress({ requestId: REQUEST_ID, elapsedMs: 2_000, outputLines: 12 })
            yield* c.progress({ requestId: REQUEST_ID, elapsedMs: 1_500, outputLines: 12 }) // not forward
            yield* c.progress({ requestId: REQUEST_ID, elapsedMs: 3_000, outputLines: 40 })
            return runningResult()
          })
      }
    })
    const seen: Array<Progress> = []
    const result = await client.callTool(
      { name: "run_command", arguments: { session_id: SESSION_ID, command: "make test" } },
      { onprogress: (p) => seen.push(p) }
    )
    expect(result.isError).toBe(false)
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3])
    for (const p of seen)
      expect(p.message).toMatch(new RegExp(`^request_id ${REQUEST_ID}: waiting for the command`))
    expect(seen[0]?.message).not.toMatch(/output line/)
    expect(seen[1]?.message).toMatch(/2 s so far, 12 output lines$/)
    expect(seen[2]?.message).toMatch(/3 s so far, 40 output lines$/)
  })

  it("nothing arrives after the answer, even from a report the runner leaves behind", async () => {
    const answered = Effect.runSync(Deferred.make<void>())
    const late = Effect.runSync(Deferred.make<void>())
    const { client, run } = await open({
      runner: {
        interrupt: (requestId) =>
          Effect.gen(function* () {
            const c = yield* control
            yield* c.progress({ requestId, elapsedMs: 1_000, outputLines: 3 })
            // A stray fiber that reports once the call has answered (a runner bug): dropped.
            yield* Effect.forkDetach(
              Deferred.await(answered).pipe(
                Effect.andThen(c.progress({ requestId, elapsedMs: 2_000, outputLines: 4 })),
                Effect.andThen(Deferred.succeed(late, undefined))
              )
            )
            return interruptedResult(requestId)
          })
      }
    })
    const errors: Array<Error> = []
    client.onerror = (error) => errors.push(error)
    const seen: Array<Progress> = []
    const result = await client.callTool(
      { name: "interrupt_command", arguments: { request_id: REQUEST_ID } },
      { onprogress: (p) => seen.push(p) }
    )
    expect(result.isError).toBe(false)
    await run(Deferred.succeed(answered, undefined))
    await run(Deferred.await(late))
    await client.ping() // anything sent before the ping's answer has been delivered by now
    expect(seen.map((p) => p.progress)).toEqual([1])
    expect(errors).toEqual([])
  })

  it("a client without a progressToken gets no notification at all", async () => {
    const { client } = await open({
      runner: {
        result: (requestId) =>
          Effect.gen(function* () {
            const c = yield* control
            expect(c.wantsProgress).toBe(false)
            yield* c.progress({ requestId, elapsedMs: 1_000, outputLines: 1 })
            return { ...runningResult(), request_id: requestId }
          })
      }
    })
    const notifications: Array<unknown> = []
    client.setNotificationHandler("notifications/progress", (n) => {
      notifications.push(n)
    })
    const result = await client.callTool({
      name: "get_command_result",
      arguments: { request_id: REQUEST_ID, wait_seconds: 3 }
    })
    expect(result.isError).toBe(false)
    await client.ping()
    expect(notifications).toEqual([])
  })
})

describe("cancellation", () => {
  /** A runner method that waits for the client's cancellation, then answers what it has. */
  const waitsForCancel = <A>(started: Deferred.Deferred<void>, answer: A) =>
    Effect.gen(function* () {
      const c = yield* control
      yield* Deferred.succeed(started, undefined)
      yield* c.cancelled
      return answer
    })

  const cancelledRun = (): CommandResult => ({
    ...runningResult(),
    status: "error",
    sent: false,
    exit_code: null,
    output: null,
    error_code: "request_cancelled",
    message: "The client cancelled the call before anything was sent; nothing was sent."
  })

  const selfTools = [
    {
      name: "run_command",
      arguments: { session_id: SESSION_ID, command: "make test" },
      overrides: (started: Deferred.Deferred<void>): Overrides => ({
        runner: { run: () => waitsForCancel(started, cancelledRun()) }
      }),
      audited: { error_code: "request_cancelled", sent: false }
    },
    {
      name: "get_command_result",
      arguments: { request_id: REQUEST_ID, wait_seconds: 60 },
      overrides: (started: Deferred.Deferred<void>): Overrides => ({
        runner: {
          result: () => waitsForCancel(started, { ...runningResult(), status: "timed_out" as const })
        }
      }),
      audited: { status: "timed_out" }
    },
    {
      name: "interrupt_command",
      arguments: { request_id: REQUEST_ID, wait_seconds: 60 },
      overrides: (started: Deferred.Deferred<void>): Overrides => ({
        runner: {
          interrupt: (requestId) =>
            waitsForCancel(
              started,
              interruptedResult(requestId, { status: "still_running", exit_code: null })
            )
        }
      }),
      audited: { status: "still_running", interrupt_sent: true }
    }
  ] as const

  for (const tool of selfTools) {
    it(`${tool.name} handles it itself: CallControl.cancelled fires and the call is still audited`, async () => {
      const started = Effect.runSync(Deferred.make<void>())
      const { client, run, nextAudit } = await open(tool.overrides(started))
      const abort = new AbortController()
      const call = client.callTool(
        { name: tool.name, arguments: tool.arguments },
        {
          signal: abort.signal
        }
      )
      await run(Deferred.await(started))
      abort.abort("the user changed their mind")
      await expect(call).rejects.toThrow()
      const event = await nextAudit()
      expect(event).toMatchObject({ _tag: "Command", tool: tool.name, result: tool.audited })
    })
  }

  it("any other tool is interrupted, and writes no audit line", async () => {
    const started = Effect.runSync(Deferred.make<void>())
    const interrupted = Effect.runSync(Deferred.make<void>())
    const { client, run, nextAudit, auditedSoFar } = await open({
      terminal: {
        read: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
          )
      }
    })
    const abort = new AbortController()
    const call = client.callTool(
      { name: "read_terminal", arguments: { session_id: SESSION_ID } },
      {
        signal: abort.signal
      }
    )
    await run(Deferred.await(started))
    abort.abort()
    await expect(call).rejects.toThrow()
    await run(Deferred.await(interrupted))
    expect((await client.callTool({ name: "list_sessions", arguments: {} })).isError).toBe(false)
    expect(await nextAudit()).toMatchObject({ _tag: "Read", tool: "list_sessions" })
    expect(auditedSoFar()).toEqual([])
  })
})
