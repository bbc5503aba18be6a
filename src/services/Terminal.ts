/**
 * Terminal — what the tools need from a terminal backend (iTerm2 first, tmux later), independent
 * of how the backend speaks. Every method targets one exact session id; nothing here resolves a
 * label, a title or "current" into a write target. The models it speaks of (a session, its
 * readiness, bounds, a cursor position) are src/domain's, re-exported here.
 */
import { Context, Effect, Schema } from "effect"
import type { CursorPosition } from "../domain/ReadCursor.js"
import type { Readiness, SessionInfo } from "../domain/Session.js"
import type { BoundedText, ReadBounds } from "../domain/TextBounds.js"
import type { SendError, TermPilotError } from "./Errors.js"

export type { CursorPosition } from "../domain/ReadCursor.js"
export { labelsOfSession, Readiness, SessionInfo } from "../domain/Session.js"
export type { BoundedText, ReadBounds } from "../domain/TextBounds.js"

/** A command's bounded output, and how many lines it printed in all (kept or not). */
export interface CommandOutput extends BoundedText {
  /** Lines the command printed, also those not returned; null when the terminal cannot tell. */
  readonly totalLines: number | null
}

export interface Snapshot extends BoundedText {
  readonly readiness: Readiness
  /** Where this read ended: pass it back as `since` to get only what was written after it. */
  readonly cursor: CursorPosition
  /** A `since` read whose position (or rows after it) left the history: `text` is what is kept. */
  readonly cursorLost: boolean
}

/**
 * What `interrupt` found, immediately before it would send: `sent` — the command typed at the
 * prompt was verifiably running (started, not ended, no prompt since) and one ETX was sent;
 * `ended` — it is not running any more (it ended, or a newer prompt is drawn), nothing sent;
 * `not_started` — its prompt is still the current one but the shell has not started it, nothing sent.
 */
export type InterruptCheck = "sent" | "ended" | "not_started"

/** What `submit` verified and sent: the prompt whose command line received the text. */
export interface Submission {
  /** Backend prompt/mark id of the prompt the command was typed at, when the backend has one. */
  readonly promptId: string | null
  /**
   * Where the backend numbers its events (`PromptEvent.seq`): the number of the last event offered
   * before the command was typed. Those events (a command of another process that ended just
   * before, say) are not about this command, though the watch, subscribed first, holds them.
   */
  readonly after?: number
}

/**
 * One command a session ran, as its backend can prove it from marks it trusts (list_commands):
 * never a guess from the screen's text. Times are ms since the epoch.
 */
export interface CommandRecord {
  /**
   * The backend's exact name for the command, unique within the session for as long as the
   * backend keeps it (tmux: the shell's token and prompt number; iTerm2: the prompt's unique id).
   * The tools seal it into an opaque `command_id`.
   */
  readonly key: string
  /** The command line as the shell ran it, when the backend knows it. */
  readonly command: string | null
  /** Null while it runs, or when the shell reported no status. */
  readonly exitCode: number | null
  readonly cwd: string | null
  readonly startedAt: number | null
  readonly finishedAt: number | null
  readonly status: "running" | "finished" | "unknown"
  /** The prompt id a `Submission` names for it (how the tools find a run_command request); null when none. */
  readonly promptId: string | null
  /** Lines of output it wrote (so far, while running); null when not known. */
  readonly outputLineCount: number | null
  /** Null when its output can be read with `commandText`; otherwise why it cannot. */
  readonly outputUnavailable: string | null
}

/** Where a `commandText` read starts: the tail (default), the head, or a line offset from the head. */
export type OutputFrom = "tail" | "head" | number

/** A bounded part of one listed command's output, read from the terminal's own history. */
export interface CommandText extends BoundedText {
  /** Lines of output the command wrote in all (the kept and the gone). */
  readonly totalLines: number
  /** The offset, in lines from the output's start, of the first line of `text`. */
  readonly firstLine: number
  /** Lines at the start of the output that have left the terminal's history (0 when all is kept). */
  readonly lostLines: number
  readonly exitCode: number | null
  readonly status: CommandRecord["status"]
}

/** What the person is asked in their own terminal (`askApproval`). */
export interface TerminalApprovalRequest {
  /** Who asks: the MCP client's name, when it gave one. */
  readonly asker: string | null
  /**
   * The approval text (src/domain/ApprovalPrompt.ts), shown in full; its action's characters
   * outside printable ASCII are already written as `<U+XXXX>`.
   */
  readonly message: string
}

/** The person's answer in their terminal, and where it came from (for the audit trail). */
export interface TerminalApprovalAnswer {
  readonly answer: "accept" | "decline"
  /** Where the answer was given, e.g. `tmux client /dev/pts/3`. */
  readonly answeredBy: string
}

/**
 * A source of sessions that did not answer a listing: a whole backend (`host` null), or one host
 * whose tmux TermPilot reaches over ssh. The sessions of the sources that answered are listed.
 */
export const UnavailableSource = Schema.Struct({
  backend: Schema.Literals(["iterm2", "tmux"]),
  host: Schema.NullOr(Schema.String),
  error_code: Schema.String,
  message: Schema.String
})
export type UnavailableSource = typeof UnavailableSource.Type

/** A listing: the sessions of every source that answered, and the sources that did not. */
export interface SessionListing {
  readonly sessions: ReadonlyArray<SessionInfo>
  readonly unavailable: ReadonlyArray<UnavailableSource>
}

export class Terminal extends Context.Service<
  Terminal,
  {
    /** Every session of every window, tab, split pane (and buried sessions). */
    readonly listSessions: Effect.Effect<ReadonlyArray<SessionInfo>, TermPilotError>
    /**
     * The same listing with the sources that did not answer named (a tmux host over ssh that is
     * unreachable, a backend that failed); absent: a backend whose listing names none.
     */
    readonly listing?: Effect.Effect<SessionListing, TermPilotError>
    /** The focused session; fails with `no_current_session` when there is none. */
    readonly currentSession: Effect.Effect<SessionInfo, TermPilotError>
    /** One session by exact id; `session_not_found` otherwise. */
    readonly getSession: (sessionId: string) => Effect.Effect<SessionInfo, TermPilotError>
    /**
     * The titles of one session by exact id (window, tab, session; those it has), for the audit
     * trail: what getSession reports in those fields, fetched without its readiness, focus and
     * process checks.
     */
    readonly sessionLabels: (sessionId: string) => Effect.Effect<ReadonlyArray<string>, TermPilotError>
    /**
     * Screen plus scrollback tail of one session, fetching no more lines than it returns. With
     * `since` (a `cursor` an earlier read of this same session returned), only the rows from that
     * position on (the cursor's row included: it may have grown) to the last written one, tail
     * bounded; `cursorLost` when some of them (or the position itself) left the history.
     */
    readonly read: (
      sessionId: string,
      bounds: ReadBounds,
      since?: CursorPosition
    ) => Effect.Effect<Snapshot, TermPilotError>
    /** Current readiness of one session. */
    readonly readiness: (sessionId: string) => Effect.Effect<Readiness, TermPilotError>
    /**
     * Atomically re-check that the session is `ready` and type `command + "\r"` into it, with
     * broadcast suppressed. Fails (having sent nothing) with `session_not_ready`,
     * `shell_integration_required` or `session_not_found` when the check does not pass, with
     * `session_claimed` when another TermPilot process holds the session (its claim), and with
     * `iterm2_unavailable` when the backend could not be reached before sending; a failure once the
     * text may have left is a `SendOutcomeUnknown`; CommandRunner reports that, and any defect, as
     * possibly sent. CommandRunner runs it uninterruptibly and, at the
     * call deadline, interrupts it: only the parts a backend wraps in `Effect.interruptible` stop,
     * and they must all come before the text may leave (an interrupted submit sent nothing).
     */
    readonly submit: (sessionId: string, command: string) => Effect.Effect<Submission, SendError>
    /**
     * The bounded tail of the output of the command typed at `promptId` (whole lines of its
     * output range only), fetching no more lines than it returns. For a command still running,
     * its output so far.
     */
    readonly commandOutput: (
      sessionId: string,
      promptId: string,
      bounds: ReadBounds
    ) => Effect.Effect<CommandOutput, TermPilotError>
    /**
     * How many lines of output the command typed at `promptId` has written so far, when the
     * backend can tell without reading them (positions or its own stream); null otherwise.
     */
    readonly outputLineCount: (
      sessionId: string,
      promptId: string
    ) => Effect.Effect<number | null, TermPilotError>
    /**
     * Atomically re-verify that the command typed at `promptId` is the one running in the session
     * and send one ETX (as Ctrl-C would) to that session only, broadcast suppressed; nothing else,
     * ever (no other signal, no Enter). Fails, having sent nothing, with `session_not_found`,
     * `session_not_ready` (e.g. tmux copy mode or synchronized panes: the key would go elsewhere),
     * `not_permitted`, `command_not_running` (the state cannot be verified) or the backend's
     * unavailable code; a failure once the ETX may have left is a `SendOutcomeUnknown`. Like `submit`, only the checks before the send may be
     * interruptible.
     */
    readonly interrupt: (sessionId: string, promptId: string) => Effect.Effect<InterruptCheck, SendError>
    /**
     * Type `bytes` (send_keys' keys, as a keyboard sends them) into exactly this session, whatever
     * runs there (a busy shell, a full-screen program), broadcast suppressed; no Enter is added.
     * Only send_keys calls it, after an approval. Fails, having sent nothing, with
     * `session_not_found`, `session_not_ready` (tmux: a mode, synchronize-panes or input off would
     * send the keys elsewhere), `not_permitted` or the backend's unavailable code; a failure once
     * the bytes may have left is a `SendOutcomeUnknown`.
     */
    readonly sendKeys: (sessionId: string, bytes: string) => Effect.Effect<void, SendError>
    /**
     * The commands the session ran that the backend can prove (oldest first): the newest `limit`,
     * only those after the one named `afterKey` when given (an unknown `afterKey`: all kept).
     * Read-only: nothing is sent.
     */
    readonly listCommands: (
      sessionId: string,
      limit: number,
      afterKey: string | null
    ) => Effect.Effect<ReadonlyArray<CommandRecord>, TermPilotError>
    /**
     * Exactly the output of the listed command `key` (nothing of its prompt, its command line or
     * the next prompt), bounded by `bounds` from `from`, read from the terminal's own history and
     * fetching no more lines than it returns. `invalid_request` for a key the backend does not
     * know; `output_unavailable` when its output cannot be read exactly (the reason in the message).
     */
    readonly commandText: (
      sessionId: string,
      key: string,
      bounds: ReadBounds,
      from: OutputFrom
    ) => Effect.Effect<CommandText, TermPilotError>
    /**
     * Ask the person, in their own terminal where `sessionId` is shown (tmux: a menu on their
     * attached client, never TermPilot's own; iTerm2: its own alert on the session's window), and
     * wait for the answer: only the person can give
     * it (nothing in a pane, a tool call or a command's environment can answer or predict it).
     * Waits until answered: the caller bounds it; interrupting it withdraws the prompt from the
     * person's screen where the terminal allows it (tmux; iTerm2 has no way to close an alert),
     * and a later key or click does nothing. Fails with `approval_unavailable` (nothing
     * shown) when there is no attached client or window to ask in, or the prompt cannot be shown.
     * Sends nothing to any session.
     */
    readonly askApproval: (
      sessionId: string,
      request: TerminalApprovalRequest
    ) => Effect.Effect<TerminalApprovalAnswer, TermPilotError>
  }
>()("termpilot/Terminal") {}

/** A backend's listing, naming the sources that did not answer when it can. */
export const listingOf = (terminal: Terminal["Service"]): Effect.Effect<SessionListing, TermPilotError> =>
  terminal.listing ?? Effect.map(terminal.listSessions, (sessions) => ({ sessions, unavailable: [] }))
