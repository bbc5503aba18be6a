/**
 * AuditLog — an append-only JSON-lines trail of what the model ran and what it was shown.
 * Entries hold sizes and SHA-256 digests of returned text, never the text itself; the command and
 * session labels are written after secret redaction, so they hold no more than redaction left.
 */
import { Context, type Effect, Schema } from "effect"
import { type CommandResult, type InterruptResult, InterruptStatus } from "./CommandRunner.js"

/**
 * What a read's digest covers: "content" — the terminal text string of the result exactly as
 * returned (read_terminal's and wait_for_output's `content`, read_command_output's `output`);
 * "json_text" — for reads without it (list_sessions, get_current_session, list_commands),
 * the result's JSON text block exactly as sent (the second `content` block of the CallToolResult).
 */
export const ReadDigestOf = Schema.Literals(["content", "json_text"])
export type ReadDigestOf = typeof ReadDigestOf.Type

/** The tools whose calls the trail records as commands (with the command's result). */
export const CommandTool = Schema.Literals(["run_command", "get_command_result", "interrupt_command"])
export type CommandTool = typeof CommandTool.Type

/** How an approval the person was asked for ended (or why it could not be asked). */
export const ApprovalOutcome = Schema.Literals([
  "accepted",
  "declined",
  "dismissed",
  "timed_out",
  "unavailable",
  "call_cancelled",
  "input_required"
])
export type ApprovalOutcome = typeof ApprovalOutcome.Type

/** One approval TermPilot asked for (or needed and could not ask), before the call it belongs to. */
export interface ApprovalEvent {
  readonly _tag: "Approval"
  readonly tool: string
  /** The request the approval was for (run_command's new one, interrupt_command's), when there is one. */
  readonly requestId: string | null
  readonly sessionId: string
  /** What the person was shown as the action (the command, or the keys in readable form). */
  readonly shown: string
  /** Why the policy asked. */
  readonly reason: string
  readonly outcome: ApprovalOutcome
  /** The MCP client the call came from (its `initialize` name), or null. */
  readonly client: string | null
  /** Where the person was asked: the MCP client's dialog, or their own terminal. */
  readonly askedIn: "client" | "terminal"
  /** Who answered (the MCP client's name, or e.g. `tmux client /dev/pts/3`); null when no one did. */
  readonly answeredBy: string | null
  readonly waitedMs: number
}

/** One send_keys call that typed (refusals have only their approval line). */
export interface KeysEvent {
  readonly _tag: "Keys"
  readonly tool: string
  readonly requestId: string
  readonly sessionId: string
  /** The keys in readable form (redacted like a command when written). */
  readonly keys: string
}

/** One tool call to record; the writer adds the time, digests and redaction. */
export type AuditEvent =
  | ApprovalEvent
  | KeysEvent
  | {
      readonly _tag: "Command"
      readonly tool: CommandTool
      /**
       * The result exactly as returned to the model (its `output` is digested, not stored);
       * interrupt_command's also says whether the call sent the interrupt.
       */
      readonly result: CommandResult | InterruptResult
      /** Window, tab and session titles of the target, as the model knew them. */
      readonly sessionLabels: ReadonlyArray<string>
    }
  | {
      readonly _tag: "Read"
      readonly tool: string
      /** The session read, or null for calls not about one session (list_sessions). */
      readonly sessionId: string | null
      /** The text returned to the model, exactly (digested, not stored). */
      readonly returned: string
      /** What `returned` is: a tool's terminal text field (`content`) or the result's JSON text block. */
      readonly digestOf: ReadDigestOf
    }

export const AuditEvent = {
  command: (
    tool: CommandTool,
    result: CommandResult | InterruptResult,
    sessionLabels: ReadonlyArray<string>
  ): AuditEvent => ({ _tag: "Command", tool, result, sessionLabels }),
  read: (tool: string, sessionId: string | null, returned: string, digestOf: ReadDigestOf): AuditEvent => ({
    _tag: "Read",
    tool,
    sessionId,
    returned,
    digestOf
  })
}

const Common = {
  v: Schema.Literal(1),
  /** ISO-8601 time at which `record` was called. */
  time: Schema.String,
  tool: Schema.String
}

/** A written line for run_command / get_command_result / interrupt_command. */
export const CommandAuditLine = Schema.Struct({
  ...Common,
  kind: Schema.Literal("command"),
  request_id: Schema.String,
  session_id: Schema.String,
  session_labels: Schema.Array(Schema.String),
  command: Schema.String,
  status: InterruptStatus,
  sent: Schema.Boolean,
  /** interrupt_command only: whether this call sent the interrupt (one ETX). */
  interrupt_sent: Schema.optional(Schema.Boolean),
  exit_code: Schema.NullOr(Schema.Finite),
  /** The status of what carried the command's shell (ssh) when that shell went away (session_lost); else null. */
  transport_exit_code: Schema.NullOr(Schema.Finite),
  error_code: Schema.NullOr(Schema.String),
  /** Code points of the returned `output`, exactly as returned; null when no output was returned. */
  output_chars: Schema.NullOr(Schema.Finite),
  /** Hex SHA-256 of the returned output's UTF-8 bytes; null when no output was returned. */
  output_sha256: Schema.NullOr(Schema.String),
  duration_ms: Schema.NullOr(Schema.Finite)
})

/** A written line for a read tool: what the model saw, by size and digest. */
export const ReadAuditLine = Schema.Struct({
  ...Common,
  kind: Schema.Literal("read"),
  session_id: Schema.NullOr(Schema.String),
  /** What returned_chars and returned_sha256 are of (see ReadDigestOf). */
  digest_of: ReadDigestOf,
  /** Code points of that text. */
  returned_chars: Schema.Finite,
  /** Hex SHA-256 of that text's UTF-8 bytes. */
  returned_sha256: Schema.String
})

/** A written line for an approval (see ApprovalEvent); `shown` is redacted like a command. */
export const ApprovalAuditLine = Schema.Struct({
  ...Common,
  kind: Schema.Literal("approval"),
  request_id: Schema.NullOr(Schema.String),
  session_id: Schema.String,
  shown: Schema.String,
  reason: Schema.String,
  outcome: ApprovalOutcome,
  client: Schema.NullOr(Schema.String),
  asked_in: Schema.Literals(["client", "terminal"]),
  answered_by: Schema.NullOr(Schema.String),
  waited_ms: Schema.Finite
})

/** A written line for send_keys: what was typed, in readable form. */
export const KeysAuditLine = Schema.Struct({
  ...Common,
  kind: Schema.Literal("keys"),
  request_id: Schema.String,
  session_id: Schema.String,
  keys: Schema.String,
  sent: Schema.Literal(true)
})

/** Written when the queue was full and entries were dropped (the trail says it has a gap). */
export const DroppedAuditLine = Schema.Struct({
  ...Common,
  kind: Schema.Literal("dropped"),
  count: Schema.Finite
})

export const AuditLine = Schema.Union([
  CommandAuditLine,
  ReadAuditLine,
  ApprovalAuditLine,
  KeysAuditLine,
  DroppedAuditLine
])
export type AuditLine = typeof AuditLine.Type

export class AuditLog extends Context.Service<
  AuditLog,
  {
    /**
     * Queue one entry for the background writer. Never fails and never waits for I/O: a full
     * queue drops the entry (and the trail records the gap); write failures are logged only.
     */
    readonly record: (event: AuditEvent) => Effect.Effect<void>
  }
>()("termpilot/AuditLog") {}
