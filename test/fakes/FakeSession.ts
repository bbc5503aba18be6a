/**
 * The FakeTerminal's model of one session: its state, how the shell's events move it (busy once a
 * command starts, ready at a new prompt), what a real backend's interrupt check would find, and
 * the helpers that shape what the fake returns like a real backend would.
 */
import type { Queue } from "effect"
import { boundTail } from "../../src/domain/TextBounds.js"
import type { PromptEvent } from "../../src/services/PromptTracker.js"
import type {
  BoundedText,
  InterruptCheck,
  ReadBounds,
  Readiness,
  SessionInfo
} from "../../src/services/Terminal.js"

export interface FakeSession {
  readonly readiness: Readiness
  readonly promptId: string | null
  readonly screen: string
  /**
   * The event queues of the session's open watches: each gets every event published while it is
   * open (a hub of subscriber queues, since a watch hands out a Queue.Dequeue).
   */
  readonly hub: Set<Queue.Queue<PromptEvent>>
  readonly watchers: number
  readonly onSubmit: ReadonlyArray<PromptEvent>
  /** The command typed at the current prompt: none yet, typed, started, or ended. */
  readonly command: "none" | "typed" | "running" | "ended"
}

/** The text as the backend's lines (one trailing newline ends the last line). */
export const linesOf = (text: string): ReadonlyArray<string> =>
  text.length === 0 ? [] : text.replace(/\n$/, "").split("\n")

/** The text bounded like a real read. */
export const bounded = (text: string, bounds: ReadBounds): BoundedText => boundTail(linesOf(text), bounds)

/** What a real backend's check finds for the command typed at `promptId`. */
export const interruptVerdict = (session: FakeSession, promptId: string): InterruptCheck =>
  session.promptId !== promptId || session.command === "ended"
    ? "ended"
    : session.command === "running"
      ? "sent"
      : "not_started"

export const notReadyMessage = (sessionId: string, readiness: Readiness): string =>
  readiness === "input_pending"
    ? `Session '${sessionId}' has pending input at the shell prompt.`
    : `Session '${sessionId}' is not at a verified shell command boundary (${readiness}).`

export const info = (sessionId: string, session: FakeSession, current: boolean): SessionInfo => ({
  session_id: sessionId,
  backend: "iterm2",
  window_id: null,
  tab_id: null,
  window_number: null,
  window_title: null,
  tab_title: null,
  session_title: null,
  hostname: null,
  username: null,
  cwd: null,
  via: null,
  tty: null,
  job_name: null,
  is_current: current,
  buried: false,
  hosts_this_client: false,
  profile_name: null,
  tag: null,
  execution_readiness: session.readiness
})

/** The session after one of the shell's events. */
export const follow = (s: FakeSession, event: PromptEvent): FakeSession => {
  switch (event._tag) {
    case "CommandStart":
      return { ...s, readiness: "busy", command: "running" }
    case "CommandEnd":
      return { ...s, command: "ended" }
    case "Prompt": {
      const promptId = event.promptId ?? s.promptId
      return { ...s, readiness: "ready", promptId, command: promptId === s.promptId ? s.command : "none" }
    }
    default:
      return s
  }
}
