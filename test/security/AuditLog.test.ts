import { createHash } from "node:crypto"
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FileSystem, type Layer, Logger, Schema } from "effect"
import { afterEach } from "vitest"
import {
  AuditLogDisabled,
  AuditLogLive,
  type AuditLogOptions,
  auditLogLayer
} from "../../src/layers/audit/AuditLogLive.js"
import { AuditEvent, AuditLine, AuditLog } from "../../src/services/AuditLog.js"
import type { CommandResult } from "../../src/services/CommandRunner.js"

const dirs: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "termpilot-audit-"))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const result = (over: Partial<CommandResult> = {}): CommandResult => ({
  request_id: "req-1",
  session_id: "w0t0p0:ABC",
  command: "ls -la",
  status: "completed",
  sent: true,
  exit_code: 0,
  transport_exit_code: null,
  output: "total 0\n",
  truncated: false,
  output_line_count: 1,
  total_output_lines: 1,
  started_at: "2026-11-29T10:00:00.000Z",
  finished_at: "2026-11-29T10:00:00.120Z",
  duration_ms: 120,
  error_code: null,
  message: null,
  ...over
})

/** Run `body` with the audit layer, then close it (which drains the queue). */
const withAudit = <A, E>(
  layer: Layer.Layer<AuditLog, never, FileSystem.FileSystem>,
  body: (audit: AuditLog["Service"]) => Effect.Effect<A, E>
) => Effect.flatMap(AuditLog, body).pipe(Effect.provide(layer), Effect.provide(NodeFileSystem.layer))

const live = (options: AuditLogOptions) => AuditLogLive(options)

const readLines = (path: string): Array<AuditLine> =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => Schema.decodeUnknownSync(AuditLine)(JSON.parse(l)))

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex")

describe("AuditLogLive", () => {
  it.effect("appends one parseable JSON line per call, with sizes and digests but not the text", () =>
    Effect.gen(function* () {
      const path = join(tempDir(), "state", "termpilot", "audit.jsonl")
      const output = "héllo 😀\nsecret-looking output line\n"
      const screen = "$ whoami\ndev\n$ "
      yield* withAudit(live({ path, maxBytes: 1 << 20 }), (audit) =>
        Effect.all([
          audit.record(
            AuditEvent.command("run_command", result({ output }), ["Main window", "zsh", "build"])
          ),
          audit.record(AuditEvent.read("read_terminal", "w0t0p0:ABC", screen, "content")),
          audit.record(AuditEvent.read("list_sessions", null, "[]", "json_text")),
          audit.record(
            AuditEvent.command(
              "get_command_result",
              result({ status: "timed_out", exit_code: null, output: null, duration_ms: null }),
              []
            )
          ),
          audit.record(
            AuditEvent.command(
              "get_command_result",
              result({
                status: "error",
                error_code: "session_lost",
                exit_code: null,
                transport_exit_code: 255,
                output: null,
                duration_ms: 900
              }),
              []
            )
          )
        ])
      )
      const raw = readFileSync(path, "utf8")
      expect(raw.endsWith("\n")).toBe(true)
      expect(raw).not.toContain("secret-looking output line")
      expect(raw).not.toContain("whoami")
      const lines = readLines(path)
      expect(lines.map((l) => [l.kind, l.tool])).toEqual([
        ["command", "run_command"],
        ["read", "read_terminal"],
        ["read", "list_sessions"],
        ["command", "get_command_result"],
        ["command", "get_command_result"]
      ])
      const [run, read, list, get, lost] = lines
      // The shell the command ran in went away: what carried it (ssh) is on the line too.
      expect(lost).toMatchObject({ error_code: "session_lost", exit_code: null, transport_exit_code: 255 })
      expect(run).toMatchObject({ transport_exit_code: null })
      expect(run).toMatchObject({
        v: 1,
        request_id: "req-1",
        session_id: "w0t0p0:ABC",
        session_labels: ["Main window", "zsh", "build"],
        command: "ls -la",
        status: "completed",
        sent: true,
        exit_code: 0,
        error_code: null,
        output_chars: 35, // code points: "héllo 😀\n" is 8 (10 UTF-16 units), the second line 27
        output_sha256: sha256(output),
        duration_ms: 120
      })
      expect(read).toMatchObject({
        session_id: "w0t0p0:ABC",
        digest_of: "content",
        returned_chars: 15,
        returned_sha256: sha256(screen)
      })
      expect(list).toMatchObject({
        session_id: null,
        digest_of: "json_text",
        returned_chars: 2,
        returned_sha256: sha256("[]")
      })
      expect(get).toMatchObject({
        status: "timed_out",
        output_chars: null,
        output_sha256: null,
        duration_ms: null
      })
      expect(Date.parse(run!.time)).not.toBeNaN()
    })
  )

  it.effect("redacts secrets in the command and labels (unless redaction is off)", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const token = "Zq8vN3kLp0Rt5sWx2Yb7"
      const event = AuditEvent.command("run_command", result({ command: `export API_TOKEN=${token}` }), [
        `deploy password=${token}`
      ])
      const on = join(dir, "on.jsonl")
      const off = join(dir, "off.jsonl")
      yield* withAudit(live({ path: on, maxBytes: 1 << 20 }), (audit) => audit.record(event))
      yield* withAudit(live({ path: off, maxBytes: 1 << 20, redact: false }), (audit) => audit.record(event))
      expect(readFileSync(on, "utf8")).not.toContain(token)
      expect(readLines(on)[0]).toMatchObject({
        command: "export API_TOKEN=[REDACTED:token]",
        session_labels: ["deploy password=[REDACTED:password]"]
      })
      expect(readFileSync(off, "utf8")).toContain(token)
    })
  )

  it.effect("writes approval and keys lines that decode as AuditLine, with the shown action redacted", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const token = "Zq8vN3kLp0Rt5sWx2Yb7"
      const path = join(dir, "approvals.jsonl")
      yield* withAudit(live({ path, maxBytes: 1 << 20 }), (audit) =>
        Effect.all([
          audit.record({
            _tag: "Approval",
            tool: "run_command",
            requestId: "req-9",
            sessionId: "%3",
            shown: `export API_TOKEN=${token}`,
            reason: "approval policy 'always'",
            outcome: "declined",
            client: "claude-code",
            askedIn: "terminal",
            answeredBy: "tmux client /dev/pts/7",
            waitedMs: 1234
          }),
          audit.record({
            _tag: "Keys",
            tool: "send_keys",
            requestId: "req-10",
            sessionId: "%3",
            keys: '"y" Enter'
          })
        ])
      )
      expect(readFileSync(path, "utf8")).not.toContain(token)
      const lines = readLines(path)
      for (const line of lines) expect(Schema.is(AuditLine)(line)).toBe(true)
      expect(lines).toMatchObject([
        {
          kind: "approval",
          tool: "run_command",
          request_id: "req-9",
          session_id: "%3",
          shown: "export API_TOKEN=[REDACTED:token]",
          outcome: "declined",
          client: "claude-code",
          asked_in: "terminal",
          answered_by: "tmux client /dev/pts/7",
          waited_ms: 1234
        },
        { kind: "keys", tool: "send_keys", request_id: "req-10", keys: '"y" Enter', sent: true }
      ])
    })
  )

  it.effect("creates the file 0600 in a new 0700 directory, and narrows an existing file to 0600", () =>
    Effect.gen(function* () {
      const base = tempDir()
      const path = join(base, "state", "termpilot", "audit.jsonl")
      yield* withAudit(live({ path, maxBytes: 1 << 20 }), (audit) =>
        audit.record(AuditEvent.read("t", null, "x", "content"))
      )
      expect(statSync(path).mode & 0o777).toBe(0o600)
      expect(statSync(join(base, "state", "termpilot")).mode & 0o777).toBe(0o700)
      expect(statSync(join(base, "state")).mode & 0o777).toBe(0o700)

      const existing = join(base, "existing.jsonl")
      writeFileSync(existing, "")
      chmodSync(existing, 0o644)
      yield* withAudit(live({ path: existing, maxBytes: 1 << 20 }), (audit) =>
        audit.record(AuditEvent.read("t", null, "x", "content"))
      )
      expect(statSync(existing).mode & 0o777).toBe(0o600)
      expect(readLines(existing)).toHaveLength(1)
    })
  )

  it.live("rotates at the size bound, keeping the newest entries in order and `keep` old files", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "audit.jsonl")
      const maxBytes = 4096
      const total = 120
      yield* withAudit(live({ path, maxBytes, keep: 3 }), (audit) =>
        Effect.forEach(
          Array.from({ length: total }, (_, i) => i),
          (i) =>
            audit
              .record(
                AuditEvent.command(
                  "run_command",
                  result({ request_id: `r${String(i).padStart(3, "0")}` }),
                  []
                )
              )
              .pipe(Effect.andThen(i % 10 === 0 ? Effect.sleep("2 millis") : Effect.void)),
          { discard: true }
        )
      )
      expect(readdirSync(dir).sort()).toEqual([
        "audit.jsonl",
        "audit.jsonl.1",
        "audit.jsonl.2",
        "audit.jsonl.3"
      ])
      const files = [`${path}.3`, `${path}.2`, `${path}.1`, path]
      for (const f of files) {
        expect(statSync(f).size).toBeLessThanOrEqual(maxBytes)
        expect(statSync(f).mode & 0o777).toBe(0o600)
      }
      // Older files are full: the next line (all lines have the same length) would not have fitted.
      const lineBytes = statSync(path).size / readLines(path).length
      for (const f of files.slice(0, 3)) expect(statSync(f).size + lineBytes).toBeGreaterThan(maxBytes)
      const ids = files.flatMap((f) => readLines(f).map((l) => (l.kind === "command" ? l.request_id : "?")))
      const first = total - ids.length
      expect(ids).toEqual(
        Array.from({ length: ids.length }, (_, i) => `r${String(first + i).padStart(3, "0")}`)
      )
      expect(first).toBeGreaterThan(0)
    })
  )

  it.effect("disabled: record does nothing and no file appears", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "audit.jsonl")
      yield* withAudit(AuditLogDisabled, (audit) => audit.record(AuditEvent.read("t", null, "x", "content")))
      yield* withAudit(auditLogLayer({ enabled: false, path, maxBytes: 4096, redact: true }), (audit) =>
        audit.record(AuditEvent.read("t", null, "x", "content"))
      )
      expect(readdirSync(dir)).toEqual([])
      expect(existsSync(path)).toBe(false)
    })
  )

  it.live("an unwritable path logs a warning once and never fails the caller", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      writeFileSync(join(dir, "file"), "not a directory")
      const path = join(dir, "file", "audit.jsonl")
      const warnings: Array<string> = []
      const capture = Logger.layer([
        Logger.make(({ logLevel, message }) => {
          if (logLevel === "Warn") warnings.push(String(message))
        })
      ])
      const outcome = yield* withAudit(live({ path, maxBytes: 4096 }), (audit) =>
        Effect.forEach(
          [1, 2, 3],
          () =>
            Effect.andThen(
              audit.record(AuditEvent.read("t", null, "x", "content")),
              Effect.sleep("30 millis")
            ),
          {
            discard: true
          }
        )
      ).pipe(Effect.provide(capture), Effect.exit)
      expect(outcome._tag).toBe("Success")
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain(path)
      expect(existsSync(path)).toBe(false)
    })
  )

  it.live("record returns at once while the writer is stuck, and closing the layer is time-bounded", () =>
    Effect.gen(function* () {
      let writes = 0
      const stuck = FileSystem.layerNoop({
        makeDirectory: () => Effect.void,
        exists: () => Effect.succeed(false),
        writeFileString: () => {
          writes++
          return Effect.never
        }
      })
      const layer = AuditLogLive({
        path: "/nowhere/audit.jsonl",
        maxBytes: 4096,
        queueCapacity: 4,
        drainTimeout: "50 millis"
      })
      const recorded = yield* Effect.flatMap(AuditLog, (audit) =>
        Effect.forEach(
          Array.from({ length: 50 }),
          () => audit.record(AuditEvent.read("t", null, "x", "content")),
          {
            discard: true
          }
        )
      ).pipe(
        Effect.provide(layer),
        Effect.provide(stuck),
        Effect.provide(Logger.layer([])),
        Effect.timeout("5 seconds"),
        Effect.exit
      )
      expect(recorded._tag).toBe("Success")
      expect(writes).toBe(1)
    })
  )

  it.live("entries dropped on a full queue leave a `dropped` line with their count", () =>
    Effect.gen(function* () {
      const path = join(tempDir(), "audit.jsonl")
      yield* withAudit(live({ path, maxBytes: 1 << 20, queueCapacity: 2 }), (audit) =>
        Effect.forEach(
          Array.from({ length: 40 }),
          () => audit.record(AuditEvent.read("t", null, "x", "content")),
          {
            discard: true
          }
        )
      ).pipe(Effect.provide(Logger.layer([])))
      const lines = readLines(path)
      const reads = lines.filter((l) => l.kind === "read").length
      const dropped = lines.reduce((n, l) => n + (l.kind === "dropped" ? l.count : 0), 0)
      expect(dropped).toBeGreaterThan(0)
      expect(reads + dropped).toBe(40)
    })
  )

  it.effect("an interrupt_command line says whether the interrupt was sent; other command lines do not", () =>
    Effect.gen(function* () {
      const path = join(tempDir(), "audit.jsonl")
      yield* withAudit(live({ path, maxBytes: 1 << 20 }), (audit) =>
        Effect.all([
          audit.record(
            AuditEvent.command(
              "interrupt_command",
              {
                ...result({ command: "sleep 100", exit_code: null, output: "^C" }),
                status: "still_running",
                interrupt_sent: true
              },
              ["zsh"]
            )
          ),
          audit.record(AuditEvent.command("run_command", result(), []))
        ])
      )
      const [interrupt, run] = readLines(path)
      expect(interrupt).toMatchObject({
        kind: "command",
        tool: "interrupt_command",
        status: "still_running",
        interrupt_sent: true,
        command: "sleep 100",
        output_chars: 2,
        output_sha256: sha256("^C")
      })
      expect(run).not.toHaveProperty("interrupt_sent")
    })
  )
})
