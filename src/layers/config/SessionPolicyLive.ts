/**
 * The session policy of the config file, applied to any Terminal backend before anything is read
 * or sent: sessions the policy hides do not exist for the tools (`session_not_found`), and
 * sending to a session that is visible but not actionable fails with `not_permitted`, nothing sent.
 * With no policy configured the backend is used as is (no extra requests).
 */
import { Effect } from "effect"
import { makeSessionPolicy, type PolicyConfig, type PolicySubject } from "../../domain/SessionPolicy.js"
import { fail, sessionNotFound } from "../../services/Errors.js"
import type {
  CursorPosition,
  OutputFrom,
  ReadBounds,
  SessionInfo,
  Terminal,
  TerminalApprovalRequest
} from "../../services/Terminal.js"

type TerminalShape = Terminal["Service"]

/** What the policy (and the approval policy's protected sessions) look at in a session. */
export const subject = (s: SessionInfo): PolicySubject => ({
  backend: s.backend,
  profileName: s.profile_name,
  tmuxSession: s.backend === "tmux" ? s.window_title : null,
  tag: s.tag
})

const hasRules = (policy: PolicyConfig) => policy.visible !== undefined || policy.actionable !== undefined

/** `terminal` restricted by `policy`; read-only mode makes no session actionable. */
export const withSessionPolicy = (
  terminal: TerminalShape,
  policy: PolicyConfig,
  options: { readonly readOnly: boolean }
): TerminalShape => {
  if (!hasRules(policy) && !options.readOnly) return terminal
  const rules = makeSessionPolicy(policy, options)
  const visible = (sessionId: string) =>
    Effect.flatMap(terminal.getSession(sessionId), (s) =>
      rules.isVisible(subject(s)) ? Effect.succeed(s) : Effect.fail(sessionNotFound(sessionId))
    )
  /** Sending anything (a command, an interrupt) needs the session visible and actionable. */
  const actionable = (sessionId: string) =>
    Effect.flatMap(visible(sessionId), (s) => {
      const verdict = rules.checkActionable(subject(s))
      return verdict.allowed
        ? Effect.void
        : Effect.fail(
            fail(
              "not_permitted",
              `TermPilot may not type into session '${sessionId}': ${verdict.reason}. Nothing was sent.`
            )
          )
    })
  return {
    listSessions: Effect.map(terminal.listSessions, (all) => all.filter((s) => rules.isVisible(subject(s)))),
    ...(terminal.listing === undefined
      ? {}
      : {
          listing: Effect.map(terminal.listing, (l) => ({
            ...l,
            sessions: l.sessions.filter((s) => rules.isVisible(subject(s)))
          }))
        }),
    currentSession: Effect.flatMap(terminal.currentSession, (s) =>
      rules.isVisible(subject(s))
        ? Effect.succeed(s)
        : Effect.fail(
            fail("no_current_session", "The focused session is hidden by TermPilot's session policy.")
          )
    ),
    getSession: visible,
    sessionLabels: (sessionId: string) =>
      Effect.andThen(visible(sessionId), terminal.sessionLabels(sessionId)),
    read: (sessionId: string, bounds: ReadBounds, since?: CursorPosition) =>
      Effect.andThen(visible(sessionId), terminal.read(sessionId, bounds, since)),
    readiness: (sessionId: string) => Effect.andThen(visible(sessionId), terminal.readiness(sessionId)),
    submit: (sessionId: string, command: string) =>
      Effect.andThen(actionable(sessionId), terminal.submit(sessionId, command)),
    commandOutput: (sessionId: string, promptId: string, bounds: ReadBounds) =>
      Effect.andThen(visible(sessionId), terminal.commandOutput(sessionId, promptId, bounds)),
    outputLineCount: (sessionId: string, promptId: string) =>
      Effect.andThen(visible(sessionId), terminal.outputLineCount(sessionId, promptId)),
    interrupt: (sessionId: string, promptId: string) =>
      Effect.andThen(actionable(sessionId), terminal.interrupt(sessionId, promptId)),
    sendKeys: (sessionId: string, bytes: string) =>
      Effect.andThen(actionable(sessionId), terminal.sendKeys(sessionId, bytes)),
    listCommands: (sessionId: string, limit: number, afterKey: string | null) =>
      Effect.andThen(visible(sessionId), terminal.listCommands(sessionId, limit, afterKey)),
    commandText: (sessionId: string, key: string, bounds: ReadBounds, from: OutputFrom) =>
      Effect.andThen(visible(sessionId), terminal.commandText(sessionId, key, bounds, from)),
    askApproval: (sessionId: string, request: TerminalApprovalRequest) =>
      Effect.andThen(actionable(sessionId), terminal.askApproval(sessionId, request))
  }
}
