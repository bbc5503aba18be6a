/**
 * CallControl — what one MCP tool call knows about its caller beyond the arguments: whether the
 * client cancelled it (`notifications/cancelled`), and where progress notifications go when the
 * client asked for them (a `progressToken`). Optional: without it a call is never cancelled and
 * reports no progress (the CLI, tests that call tools directly).
 */
import { Context, type Effect } from "effect"

/** One progress report of a wait on a command. */
export interface ProgressReport {
  /** The command waited on (named in the message, so a client that cancels can pick it up). */
  readonly requestId: string
  /** Since the wait started; reported as the notification's `progress` (it only increases). */
  readonly elapsedMs: number
  /** Lines of output so far, when the backend can tell cheaply; null otherwise. */
  readonly outputLines: number | null
  /** What is waited for: the command (default), or the person's answer to an approval dialog. */
  readonly awaiting?: "command" | "approval"
  /**
   * The notification's whole message, for a wait that is not on a command (wait_for_output, whose
   * `requestId` is then the session id); by default the message names the request_id.
   */
  readonly message?: string
}

export class CallControl extends Context.Service<
  CallControl,
  {
    /** Completes when the client cancelled this call; never otherwise. */
    readonly cancelled: Effect.Effect<void>
    /** Whether the client asked for progress (sent a progressToken). */
    readonly wantsProgress: boolean
    /** Send one progress notification; a no-op without a progressToken. Never fails. */
    readonly progress: (report: ProgressReport) => Effect.Effect<void>
  }
>()("termpilot/CallControl") {}
