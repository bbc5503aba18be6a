/**
 * CommandRecords — canned backend CommandRecords for the list_commands / read_command_output tests,
 * and the harness they use: the real MCP SDK client over a RecordingBackend whose Terminal answers
 * listCommands with those records (for any session id) and whose runner knows one prompt as a
 * run_command request of this process; audit events are kept for the test to read.
 */
import { Effect, Layer } from "effect"
import { type AuditEvent, AuditLog } from "../../src/services/AuditLog.js"
import type { CommandRecord } from "../../src/services/Terminal.js"
import { ToolSettings } from "../../src/services/ToolSettings.js"
import { toolRegistry } from "../../src/tools/Registry.js"
import { type McpHarness, openMcpHarness } from "./McpHarness.js"
import { makeRecordingBackend, type Overrides, type RecordingBackend } from "./RecordingBackend.js"

/** 2026-01-02T03:04:05.000Z */
export const T0 = Date.UTC(2026, 0, 2, 3, 4, 5)

/** The run_command request of this process that typed at prompt "p1". */
export const OUR_REQUEST = "0123456789abcdef0123456789abcdef"

export const GITHUB_TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

export const record = (over: Partial<CommandRecord> & Pick<CommandRecord, "key">): CommandRecord => ({
  command: null,
  exitCode: null,
  cwd: null,
  startedAt: null,
  finishedAt: null,
  status: "unknown",
  promptId: null,
  outputLineCount: null,
  outputUnavailable: null,
  ...over
})

/** Oldest first, as a backend lists them: ours (finished), the person's (running), one it cannot tell. */
export const sampleRecords: ReadonlyArray<CommandRecord> = [
  record({
    key: "tp7f3a9c:41",
    command: "make test",
    exitCode: 2,
    cwd: "/Users/ada/src",
    startedAt: T0,
    finishedAt: T0 + 1_250,
    status: "finished",
    promptId: "p1",
    outputLineCount: 57
  }),
  record({
    key: "tp7f3a9c:42",
    command: `export GITHUB_TOKEN=${GITHUB_TOKEN}`,
    cwd: "/Users/ada/\u200bsrc",
    startedAt: T0 + 5_000,
    status: "running",
    promptId: "p2",
    outputLineCount: 0,
    outputUnavailable: "its output is no longer in the pane's history"
  }),
  record({ key: "tp7f3a9c:43" })
]

export interface Opened {
  readonly client: McpHarness["client"]
  readonly backend: RecordingBackend
  /** Every audit event recorded so far, in order. */
  readonly audited: () => ReadonlyArray<AuditEvent>
}

/**
 * Open the harness over a RecordingBackend listing `records` for any session, prompt "p1" being
 * OUR_REQUEST's; `overrides` replace those defaults. `redactSecrets: false` turns redaction off.
 */
export const openWithRecords = async (
  records: ReadonlyArray<CommandRecord> = sampleRecords,
  overrides: Overrides = {},
  options: { readonly readOnly?: boolean; readonly redactSecrets?: boolean } = {}
): Promise<Opened & { readonly close: () => Promise<void> }> => {
  const backend = makeRecordingBackend({
    ...overrides,
    terminal: { listCommands: () => Effect.succeed(records), ...overrides.terminal },
    runner: {
      requestAt: (_session, promptId) => Effect.succeed(promptId === "p1" ? OUR_REQUEST : null),
      ...overrides.runner
    }
  })
  const settings = Layer.succeed(ToolSettings, {
    redactSecrets: options.redactSecrets ?? true,
    deadlineMs: 15_000
  })
  const events: Array<AuditEvent> = []
  const audit = Layer.succeed(
    AuditLog,
    AuditLog.of({ record: (event) => Effect.sync(() => events.push(event)) })
  )
  const harness = await openMcpHarness(Layer.mergeAll(backend.layer, settings, audit), {
    tools: toolRegistry({ readOnly: options.readOnly ?? false })
  })
  // listTools first: the SDK client then validates every structuredContent against outputSchema.
  await harness.client.listTools()
  return { client: harness.client, backend, audited: () => [...events], close: harness.close }
}

type Result = Awaited<ReturnType<McpHarness["client"]["callTool"]>>

export const structured = (result: Result) => result.structuredContent as Record<string, unknown>

export const summaryOf = (result: Result) =>
  (result.content as ReadonlyArray<{ text?: string }>)[0]?.text ?? ""

/** The recorded calls of one method of the backend. */
export const callsOf = (backend: RecordingBackend, method: string) =>
  backend.calls().filter((call) => call.method === method)
