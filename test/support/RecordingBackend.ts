/**
 * RecordingBackend — a Terminal + CommandRunner (+ PromptTracker) layer for MCP-surface tests that records every
 * call it receives (so a test can assert that a rejected request reached nothing) and answers
 * from canned data, or from per-method overrides that fail, die or return something else.
 */
import { Effect, Layer, Queue, Ref } from "effect"
import { boundTail } from "../../src/domain/TextBounds.js"
import { waitForOutput } from "../../src/layers/runner/OutputWait.js"
import { sendKeys } from "../../src/layers/runner/SendKeysFlow.js"
import {
  type CommandResult,
  CommandRunner,
  type InterruptResult,
  type RunRequest
} from "../../src/services/CommandRunner.js"
import { fail } from "../../src/services/Errors.js"
import { type PromptEvent, PromptTracker } from "../../src/services/PromptTracker.js"
import { labelsOfSession, type SessionInfo, Terminal } from "../../src/services/Terminal.js"

export interface BackendCall {
  readonly service: "Terminal" | "CommandRunner" | "PromptTracker"
  readonly method: string
  readonly args: ReadonlyArray<unknown>
}

type TerminalShape = Terminal["Service"]
type RunnerShape = CommandRunner["Service"]
type TrackerShape = PromptTracker["Service"]

export interface Overrides {
  readonly terminal?: Partial<TerminalShape>
  readonly runner?: Partial<RunnerShape>
  readonly tracker?: Partial<TrackerShape>
}

export const SESSION_ID = "w0t0p0:0A1B2C3D-0000-4000-8000-000000000001"

export const sampleSession: SessionInfo = {
  session_id: SESSION_ID,
  backend: "iterm2",
  window_id: "pty-1",
  tab_id: "1",
  window_number: 1,
  window_title: "~/src — zsh",
  tab_title: "zsh",
  session_title: "zsh",
  hostname: "laptop.local",
  username: "ada",
  cwd: "/Users/ada/src",
  via: null,
  tty: "/dev/ttys003",
  job_name: "zsh",
  is_current: true,
  buried: false,
  hosts_this_client: false,
  profile_name: "Default",
  tag: null,
  execution_readiness: "ready"
}

/** Screen lines of the canned session, oldest first (bounded by the real boundTail). */
export const sampleScreen: ReadonlyArray<string> = [
  "ada@laptop ~/src % ls",
  "README.md  src  test",
  "ada@laptop ~/src % "
]

export const completedResult = (request: RunRequest): CommandResult => ({
  request_id: "0123456789abcdef0123456789abcdef",
  session_id: request.sessionId,
  command: request.command,
  status: "completed",
  sent: true,
  exit_code: 0,
  transport_exit_code: null,
  output: "README.md  src  test",
  truncated: false,
  output_line_count: 1,
  total_output_lines: 1,
  started_at: "2026-01-02T03:04:05.000Z",
  finished_at: "2026-01-02T03:04:05.250Z",
  duration_ms: 250,
  error_code: null,
  message: null
})

/** A `sleep 100` that one ETX stopped: the shell's own result (completed, 130), interrupt sent. */
export const interruptedResult = (
  requestId: string,
  over: Partial<InterruptResult> = {}
): InterruptResult => ({
  ...completedResult({
    sessionId: SESSION_ID,
    command: "sleep 100",
    waitForCompletion: false,
    timeoutSeconds: 30,
    maxOutputChars: 32768,
    maxOutputLines: 2000
  }),
  request_id: requestId,
  exit_code: 130,
  output: "^C",
  duration_ms: 4_250,
  finished_at: "2026-01-02T03:04:09.250Z",
  interrupt_sent: true,
  ...over
})

export interface RecordingBackend {
  readonly layer: Layer.Layer<Terminal | CommandRunner | PromptTracker>
  /** Every call received so far, in order. */
  readonly calls: () => ReadonlyArray<BackendCall>
}

export const makeRecordingBackend = (overrides: Overrides = {}): RecordingBackend => {
  const log = Effect.runSync(Ref.make<ReadonlyArray<BackendCall>>([]))
  const record = (service: BackendCall["service"], method: string, args: ReadonlyArray<unknown>) =>
    Ref.update(log, (calls) => [...calls, { service, method, args }])
  const t = overrides.terminal ?? {}
  const r = overrides.runner ?? {}
  const w = overrides.tracker ?? {}
  const notFound = (id: string) => Effect.fail(fail("session_not_found", `Session '${id}' was not found.`))
  const known = (id: string) => (id === SESSION_ID ? Effect.succeed(sampleSession) : notFound(id))

  const terminal: TerminalShape = {
    listSessions: Effect.andThen(
      record("Terminal", "listSessions", []),
      t.listSessions ?? Effect.succeed([sampleSession])
    ),
    currentSession: Effect.andThen(
      record("Terminal", "currentSession", []),
      t.currentSession ?? Effect.succeed(sampleSession)
    ),
    getSession: (id) =>
      Effect.andThen(record("Terminal", "getSession", [id]), t.getSession?.(id) ?? known(id)),
    sessionLabels: (id) =>
      Effect.andThen(
        record("Terminal", "sessionLabels", [id]),
        t.sessionLabels?.(id) ?? Effect.map(known(id), labelsOfSession)
      ),
    read: (id, bounds, since) =>
      Effect.andThen(
        record("Terminal", "read", since === undefined ? [id, bounds] : [id, bounds, since]),
        t.read?.(id, bounds, since) ??
          Effect.map(known(id), () => ({
            ...boundTail(sampleScreen, bounds),
            readiness: "ready" as const,
            cursor: { row: sampleScreen.length, anchor: null, rowDigest: null },
            cursorLost: false
          }))
      ),
    readiness: (id) =>
      Effect.andThen(
        record("Terminal", "readiness", [id]),
        t.readiness?.(id) ?? Effect.as(known(id), "ready" as const)
      ),
    submit: (id, command) =>
      Effect.andThen(
        record("Terminal", "submit", [id, command]),
        t.submit?.(id, command) ?? Effect.as(known(id), { promptId: "prompt-1" })
      ),
    commandOutput: (id, promptId, bounds) =>
      Effect.andThen(
        record("Terminal", "commandOutput", [id, promptId, bounds]),
        t.commandOutput?.(id, promptId, bounds) ??
          Effect.as(known(id), { ...boundTail([], bounds), totalLines: 0 })
      ),
    outputLineCount: (id, promptId) =>
      Effect.andThen(
        record("Terminal", "outputLineCount", [id, promptId]),
        t.outputLineCount?.(id, promptId) ?? Effect.as(known(id), null)
      ),
    interrupt: (id, promptId) =>
      Effect.andThen(
        record("Terminal", "interrupt", [id, promptId]),
        t.interrupt?.(id, promptId) ?? Effect.as(known(id), "sent" as const)
      ),
    sendKeys: (id, bytes) =>
      Effect.andThen(
        record("Terminal", "sendKeys", [id, bytes]),
        t.sendKeys?.(id, bytes) ?? Effect.asVoid(known(id))
      ),
    listCommands: (id, limit, afterKey) =>
      Effect.andThen(
        record("Terminal", "listCommands", [id, limit, afterKey]),
        t.listCommands?.(id, limit, afterKey) ?? Effect.as(known(id), [])
      ),
    commandText: (id, key, bounds, from) =>
      Effect.andThen(
        record("Terminal", "commandText", [id, key, bounds, from]),
        t.commandText?.(id, key, bounds, from) ??
          Effect.andThen(known(id), Effect.fail(fail("invalid_request", `No command '${key}' is known.`)))
      ),
    askApproval: (id, request) =>
      Effect.andThen(
        record("Terminal", "askApproval", [id, request]),
        t.askApproval?.(id, request) ??
          Effect.andThen(known(id), Effect.fail(fail("approval_unavailable", "No terminal to ask in.")))
      )
  }
  const runner: RunnerShape = {
    run: (request) =>
      Effect.andThen(
        record("CommandRunner", "run", [request]),
        r.run?.(request) ?? Effect.as(known(request.sessionId), completedResult(request))
      ),
    result: (requestId, waitSeconds) =>
      Effect.andThen(
        record("CommandRunner", "result", [requestId, waitSeconds]),
        r.result?.(requestId, waitSeconds) ??
          Effect.fail(fail("request_not_found", `No command request '${requestId}' is known.`))
      ),
    interrupt: (requestId, waitSeconds) =>
      Effect.andThen(
        record("CommandRunner", "interrupt", [requestId, waitSeconds]),
        r.interrupt?.(requestId, waitSeconds) ??
          Effect.fail(fail("request_not_found", `No command request '${requestId}' is known.`))
      ),
    // send_keys' and wait_for_output's flows are the runner's own (as CommandRunnerLive runs them),
    // over this fake's Terminal and PromptTracker, whose calls are recorded.
    sendKeys: (sessionId, keys) => r.sendKeys?.(sessionId, keys) ?? sendKeys(terminal, sessionId, keys),
    waitForOutput: (spec) => r.waitForOutput?.(spec) ?? waitForOutput({ terminal, tracker }, spec),
    // By default no prompt is known to be one of this process's requests (list_commands: "person").
    requestAt: (sessionId, promptId) =>
      Effect.andThen(
        record("CommandRunner", "requestAt", [sessionId, promptId]),
        r.requestAt?.(sessionId, promptId) ?? Effect.succeed(null)
      )
  }
  /** By default a watch of the known session sees no event at all. */
  const tracker: TrackerShape = {
    watch: (id) =>
      Effect.andThen(
        record("PromptTracker", "watch", [id]),
        w.watch?.(id) ??
          Effect.andThen(known(id), Effect.acquireRelease(Queue.unbounded<PromptEvent>(), Queue.shutdown))
      )
  }
  return {
    layer: Layer.mergeAll(
      Layer.succeed(Terminal, terminal),
      Layer.succeed(CommandRunner, runner),
      Layer.succeed(PromptTracker, tracker)
    ),
    calls: () => Effect.runSync(Ref.get(log))
  }
}
