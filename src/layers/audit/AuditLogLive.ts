/**
 * AuditLogLive — appends audit entries to a JSON-lines file (mode 0600, its new directory 0700)
 * from one background fiber fed by a bounded, dropping queue, rotating `audit.jsonl` →
 * `audit.jsonl.1` … `.keep` at a size bound. A failed write is logged once per streak, never fatal.
 */
import { createHash } from "node:crypto"
import { dirname } from "node:path"
import { Clock, type Duration, Effect, Fiber, FileSystem, Layer, type PlatformError, Queue } from "effect"
import { redactSecrets } from "../../domain/Redaction.js"
import { type AuditEvent, type AuditLine, AuditLog } from "../../services/AuditLog.js"

export interface AuditLogOptions {
  /** Absolute path of the live file. */
  readonly path: string
  /** Rotate before a write would take the file past this many bytes. */
  readonly maxBytes: number
  /** Rotated files kept (`.1` newest … `.keep` oldest). Default 3. */
  readonly keep?: number
  /** Entries waiting for the writer before new ones are dropped. Default 1024. */
  readonly queueCapacity?: number
  /** Redact secrets in commands and labels before writing. Default true. */
  readonly redact?: boolean
  /** How long closing the layer may spend writing what is still queued. Default 2 seconds. */
  readonly drainTimeout?: Duration.Input
}

interface Queued {
  readonly event: AuditEvent
  readonly time: string
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

const codePoints = (text: string) => {
  let n = 0
  for (const _ of text) n++
  return n
}

/** The line written for one event; the returned text itself never appears in it. */
export const auditLine = ({ event, time }: Queued, redact: boolean): AuditLine => {
  const clean = (text: string) => (redact ? redactSecrets(text).text : text)
  if (event._tag === "Approval") {
    return {
      v: 1,
      time,
      tool: event.tool,
      kind: "approval",
      request_id: event.requestId,
      session_id: event.sessionId,
      shown: clean(event.shown),
      reason: clean(event.reason),
      outcome: event.outcome,
      client: event.client === null ? null : clean(event.client),
      asked_in: event.askedIn,
      answered_by: event.answeredBy === null ? null : clean(event.answeredBy),
      waited_ms: event.waitedMs
    }
  }
  if (event._tag === "Keys") {
    const { tool, requestId, sessionId, keys } = event
    return {
      v: 1,
      time,
      tool,
      kind: "keys",
      request_id: requestId,
      session_id: sessionId,
      keys: clean(keys),
      sent: true
    }
  }
  if (event._tag === "Read") {
    return {
      v: 1,
      time,
      tool: event.tool,
      kind: "read",
      session_id: event.sessionId,
      digest_of: event.digestOf,
      returned_chars: codePoints(event.returned),
      returned_sha256: sha256(event.returned)
    }
  }
  const r = event.result
  return {
    v: 1,
    time,
    tool: event.tool,
    kind: "command",
    request_id: r.request_id,
    session_id: r.session_id,
    session_labels: event.sessionLabels.map(clean),
    command: clean(r.command),
    status: r.status,
    sent: r.sent,
    ...("interrupt_sent" in r ? { interrupt_sent: r.interrupt_sent } : {}),
    exit_code: r.exit_code,
    transport_exit_code: r.transport_exit_code ?? null,
    error_code: r.error_code,
    output_chars: r.output === null ? null : codePoints(r.output),
    output_sha256: r.output === null ? null : sha256(r.output),
    duration_ms: r.duration_ms
  }
}

const make = (options: AuditLogOptions) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const { path, maxBytes } = options
    const keep = Math.max(1, options.keep ?? 3)
    const redact = options.redact ?? true
    const queue = yield* Queue.dropping<Queued>(Math.max(1, options.queueCapacity ?? 1024))

    let dropped = 0
    let size: number | undefined // bytes in the live file, once known
    let failing = false
    let lost = 0

    const ignoreMissing = <A>(effect: Effect.Effect<A, PlatformError.PlatformError>) =>
      Effect.catch(effect, (e) => (e.reason._tag === "NotFound" ? Effect.void : Effect.fail(e)))

    const currentSize = Effect.gen(function* () {
      yield* fs.makeDirectory(dirname(path), { recursive: true, mode: 0o700 })
      const exists = yield* fs.exists(path)
      if (!exists) return 0
      yield* fs.chmod(path, 0o600) // a file someone else created may be wider
      return Number((yield* fs.stat(path)).size)
    })

    const rotate = Effect.gen(function* () {
      for (let i = keep - 1; i >= 1; i--) yield* ignoreMissing(fs.rename(`${path}.${i}`, `${path}.${i + 1}`))
      yield* ignoreMissing(fs.rename(path, `${path}.1`))
    })

    /** Write `lines` (each ending in "\n"), rotating between chunks so no file passes the bound. */
    const writeLines = (lines: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        let known = size ?? (yield* currentSize)
        let chunk = ""
        let chunkBytes = 0
        const flush = Effect.gen(function* () {
          if (chunk === "") return
          yield* fs.writeFileString(path, chunk, { flag: "a", mode: 0o600 })
          known += chunkBytes
          size = known
          chunk = ""
          chunkBytes = 0
        })
        for (const line of lines) {
          const bytes = Buffer.byteLength(line, "utf8")
          if (known + chunkBytes + bytes > maxBytes && known + chunkBytes > 0) {
            yield* flush
            yield* rotate
            known = 0
            size = 0
          }
          chunk += line
          chunkBytes += bytes
        }
        yield* flush
      })

    const writeBatch = (batch: ReadonlyArray<Queued>) =>
      Effect.gen(function* () {
        const lines = batch.map((q) => `${JSON.stringify(auditLine(q, redact))}\n`)
        if (dropped > 0) {
          const time = new Date(yield* Clock.currentTimeMillis).toISOString()
          const gap: AuditLine = { v: 1, time, tool: "audit", kind: "dropped", count: dropped }
          yield* Effect.logWarning(`audit log queue full: ${dropped} entries dropped`)
          dropped = 0
          lines.unshift(`${JSON.stringify(gap)}\n`)
        }
        yield* writeLines(lines).pipe(
          Effect.matchCauseEffect({
            onSuccess: () => {
              const recovered = failing
              failing = false
              const note = `audit log ${path} is writable again; ${lost} entries were not written`
              lost = 0
              return recovered ? Effect.logWarning(note) : Effect.void
            },
            onFailure: (cause) => {
              size = undefined
              lost += lines.length
              if (failing) return Effect.void
              failing = true
              return Effect.logWarning(
                `audit log ${path} could not be written (further failures are not logged until a write succeeds)`,
                cause
              )
            }
          })
        )
      })

    const writer = Effect.forever(
      Effect.uninterruptibleMask((restore) =>
        restore(Queue.takeBetween(queue, 1, 256)).pipe(Effect.flatMap((batch) => writeBatch(batch)))
      )
    )
    const fiber = yield* Effect.forkDetach(writer)

    const drain = Effect.gen(function* () {
      yield* Fiber.interrupt(fiber)
      // What is queued now, without waiting for more (takeAll would wait for one entry).
      const rest = yield* Queue.clear(queue)
      if (rest.length > 0 || dropped > 0) yield* writeBatch(rest)
    })

    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        // On its own fiber, so that the time bound returns at once even if the drain cannot be
        // cut short; it is then interrupted in the background.
        const draining = yield* Effect.forkDetach(drain)
        yield* Fiber.await(draining).pipe(
          Effect.timeoutOrElse({
            duration: options.drainTimeout ?? "2 seconds",
            orElse: () => Effect.forkDetach(Fiber.interrupt(draining))
          })
        )
      }).pipe(
        // Finalizers run uninterruptibly; the time bound can only cut the drain off if it may interrupt.
        Effect.interruptible,
        Effect.ignore
      )
    )

    const record = (event: AuditEvent) =>
      Effect.flatMap(Clock.currentTimeMillis, (millis) =>
        Queue.offer(queue, { event, time: new Date(millis).toISOString() })
      ).pipe(
        Effect.tap((accepted) =>
          Effect.sync(() => {
            if (!accepted) dropped++
          })
        ),
        Effect.asVoid
      )

    return AuditLog.of({ record })
  })

/** The file-backed audit log. Needs a FileSystem; building it touches no file. */
export const AuditLogLive = (options: AuditLogOptions): Layer.Layer<AuditLog, never, FileSystem.FileSystem> =>
  Layer.effect(AuditLog, make(options))

/** Audit switched off: `record` does nothing. */
export const AuditLogDisabled: Layer.Layer<AuditLog> = Layer.succeed(
  AuditLog,
  AuditLog.of({ record: () => Effect.void })
)

/**
 * The layer for resolved settings: disabled when `enabled` is false or there is no path to write
 * (no HOME; a warning says so), file-backed otherwise.
 */
export const auditLogLayer = (settings: {
  readonly enabled: boolean
  readonly path: string | undefined
  readonly maxBytes: number
  readonly redact: boolean
}): Layer.Layer<AuditLog, never, FileSystem.FileSystem> => {
  if (!settings.enabled) return AuditLogDisabled
  if (settings.path === undefined) {
    const warn = Layer.effectDiscard(
      Effect.logWarning("audit log disabled: no audit path (set audit.path or HOME)")
    )
    return Layer.merge(warn, AuditLogDisabled)
  }
  return AuditLogLive({ path: settings.path, maxBytes: settings.maxBytes, redact: settings.redact })
}
