/**
 * The CallControl of one MCP tools/call, built from the SDK's request `extra`: `cancelled` follows
 * the request's AbortSignal (the SDK aborts it on `notifications/cancelled`), and each progress
 * report becomes a `notifications/progress` for the client's progressToken, never after the call
 * has answered (the server closes the control first).
 */
import type { ProgressToken, ServerNotification } from "@modelcontextprotocol/server"
import { Effect, Fiber } from "effect"
import { CallControl, type ProgressReport } from "../services/CallControl.js"

/** How long one progress send may take; a slow client loses that report, never the call. */
export const PROGRESS_SEND_TIMEOUT = "1 second"

/** What the SDK hands a request handler that this needs (a subset of RequestHandlerExtra). */
export interface CallExtra {
  readonly signal: AbortSignal
  readonly _meta?: { readonly progressToken?: ProgressToken | undefined } | undefined
  readonly sendNotification: (notification: ServerNotification) => Promise<void>
}

/** The notification's message: names the request_id, so a client that cancels can pick it up. */
export const progressMessage = (report: ProgressReport): string => {
  if (report.message !== undefined) return report.message
  const seconds = Math.round(report.elapsedMs / 1000)
  const lines = report.outputLines
  const output = lines === null ? "" : `, ${lines} output line${lines === 1 ? "" : "s"}`
  const what = report.awaiting === "approval" ? "the user's approval" : "the command"
  return `request_id ${report.requestId}: waiting for ${what}, ${seconds} s so far${output}`
}

export interface McpCallControl {
  readonly control: CallControl["Service"]
  /** Drop every later report; the server calls it before it answers. */
  readonly close: () => void
}

export const makeCallControl = (extra: CallExtra): McpCallControl => {
  const token = extra._meta?.progressToken
  let open = true
  let lastProgress = 0

  const cancelled = Effect.callback<void>((resume) => {
    const onAbort = () => resume(Effect.void)
    if (extra.signal.aborted) return onAbort()
    extra.signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => extra.signal.removeEventListener("abort", onAbort))
  })

  /**
   * The send runs in its own interruptible fiber, so its timeout can cut it short, and is awaited
   * uninterruptibly, so an interruption of the caller waits for it (at most the timeout). A daemon:
   * a child fiber would receive the caller's interruption at once.
   */
  const send = (report: ProgressReport, progress: number) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.tryPromise(() =>
        extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token as ProgressToken, progress, message: progressMessage(report) }
        })
      ).pipe(
        Effect.timeout(PROGRESS_SEND_TIMEOUT),
        Effect.tapError((error) => Effect.logDebug("progress notification not sent", error)),
        Effect.ignore,
        restore,
        Effect.forkDetach,
        Effect.flatMap(Fiber.join)
      )
    )

  /** `progress` must increase (MCP): a report that does not move it forward is dropped. */
  const progress = (report: ProgressReport) =>
    Effect.suspend(() => {
      const value = report.elapsedMs / 1000
      if (token === undefined || !open || !(value > lastProgress)) return Effect.void
      lastProgress = value
      return send(report, value)
    })

  return {
    control: CallControl.of({ cancelled, wantsProgress: token !== undefined, progress }),
    close: () => {
      open = false
    }
  }
}
