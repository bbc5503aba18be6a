/**
 * The Terminal service over iTerm2's API (Iterm2TerminalLive): inventory, focus, bounded reads
 * (optionally from an earlier read's cursor), readiness, and the fail-closed submit and interrupt
 * (re-check and send inside one transaction, so nothing can change between the check and the send),
 * each claiming the session against every other TermPilot process first (Claims.ts) and refusing
 * the session the MCP client itself runs in (ClientSession.ts).
 */
import { Effect, Layer } from "effect"
import { CLAIM_VARIABLE } from "../../../domain/iterm2/ClaimVariable.js"
import { promptReadiness, readinessRefusal } from "../../../domain/iterm2/PromptReadiness.js"
import { LABEL_VARIABLES, labelsOf } from "../../../domain/iterm2/SessionVariables.js"
import { fail, sessionNotFound } from "../../../services/Errors.js"
import {
  type CursorPosition,
  type ReadBounds,
  type Submission,
  Terminal
} from "../../../services/Terminal.js"
import { makeIterm2Approval } from "./Approval.js"
import { exactSessionId, getVariables, inTransaction, promptAndVariables, sendText } from "./Calls.js"
import { Iterm2Claims, Iterm2ClaimsLive } from "./Claims.js"
import { CLIENT_HOST_VARIABLES, refuseClientSession } from "./ClientSession.js"
import { commandText, listCommands } from "./Commands.js"
import { Iterm2Connection } from "./ConnectionService.js"
import { interruptCommand } from "./Interrupt.js"
import { describe, describeAll, readLayout } from "./Inventory.js"
import { Iterm2PromptSessions, Iterm2PromptSessionsLive } from "./PromptSessions.js"
import { outputRowCount, readCommandOutput, readScreen } from "./Read.js"
import { sessionReadiness } from "./Readiness.js"
import { readSince } from "./ReadSince.js"

const Iterm2TerminalWithClaims = Layer.effect(
  Terminal,
  Effect.gen(function* () {
    const conn = yield* Iterm2Connection
    const claims = yield* Iterm2Claims
    const sessions = yield* Iterm2PromptSessions
    const { identity } = claims

    const listSessions = Effect.gen(function* () {
      const layout = yield* readLayout(conn)
      // A session that closed between ListSessions and its metadata is simply gone.
      return yield* describeAll(conn, identity, layout.sessions, layout.current)
    }).pipe(Effect.withSpan("Iterm2Terminal.listSessions"))

    const getSession = (sessionId: string) =>
      Effect.gen(function* () {
        const layout = yield* readLayout(conn)
        const placement = layout.sessions.find((p) => p.sessionId === sessionId)
        if (placement === undefined) return yield* sessionNotFound(sessionId)
        return yield* describe(conn, identity, placement, layout.current)
      })

    /** One variables request: the titles getSession reports (without the layout's summary fallback). */
    const sessionLabels = (sessionId: string) =>
      Effect.map(getVariables(conn, sessionId, LABEL_VARIABLES), labelsOf)

    const currentSession = Effect.gen(function* () {
      const layout = yield* readLayout(conn)
      const placement = layout.sessions.find((p) => p.sessionId === layout.current)
      if (placement === undefined) {
        return yield* fail("no_current_session", "iTerm2 has no current terminal session.")
      }
      return yield* describe(conn, identity, placement, layout.current)
    })

    const read = (sessionId: string, bounds: ReadBounds, since?: CursorPosition) =>
      Effect.gen(function* () {
        const { cursorRow, cursorRowDigest, ...text } =
          since === undefined
            ? { ...(yield* readScreen(conn, sessionId, bounds)), cursorLost: false }
            : yield* readSince(conn, sessionId, bounds, since)
        const readiness = yield* sessionReadiness(conn, sessionId, identity)
        return { ...text, readiness, cursor: { row: cursorRow, anchor: null, rowDigest: cursorRowDigest } }
      })

    /**
     * Inside the transaction: the claim (another process's refuses first, whatever the prompt
     * says), the readiness, then our claim written and the command typed; the claim is held until
     * the command's prompt comes back.
     */
    const submit = (sessionId: string, command: string) =>
      Effect.gen(function* () {
        // The checks may be cut short (the runner's deadline); the claim and the send below may not.
        const [prompt, [alternate, claim, ...host]] = yield* Effect.interruptible(
          promptAndVariables(conn, sessionId, [
            "showingAlternateScreen",
            CLAIM_VARIABLE,
            ...CLIENT_HOST_VARIABLES
          ])
        )
        yield* refuseClientSession(sessionId, host, "a command")
        yield* claims.check(sessionId, claim)
        const readiness = promptReadiness(prompt, alternate)
        if (readiness !== "ready") return yield* readinessRefusal(sessionId, readiness)
        const promptId = prompt?.unique_prompt_id ?? null
        const ticket = yield* claims.take(sessionId, promptId)
        yield* sendText(conn, sessionId, `${command}\r`, "the command").pipe(
          Effect.ensuring(claims.hold(ticket))
        )
        return { promptId } satisfies Submission
      })

    /**
     * send_keys: the claim checked and the keys typed in one transaction. No claim is written (the
     * transaction already excludes every other send for this one send); a dead holder's is cleared.
     */
    const sendKeys = (sessionId: string, bytes: string) =>
      inTransaction(
        conn,
        Effect.gen(function* () {
          const [claim, ...host] = yield* Effect.interruptible(
            getVariables(conn, sessionId, [CLAIM_VARIABLE, ...CLIENT_HOST_VARIABLES])
          )
          yield* refuseClientSession(sessionId, host, "keys")
          const held = yield* claims.check(sessionId, claim)
          if (held._tag === "Dead") yield* claims.clearDead(sessionId)
          yield* sendText(conn, sessionId, bytes, "the keys")
        })
      )

    return Terminal.of({
      listSessions,
      currentSession,
      getSession: (sessionId) => Effect.flatMap(exactSessionId(sessionId), getSession),
      sessionLabels: (sessionId) => Effect.flatMap(exactSessionId(sessionId), sessionLabels),
      read: (sessionId, bounds, since) =>
        Effect.flatMap(exactSessionId(sessionId), (id) => read(id, bounds, since)),
      readiness: (sessionId) =>
        Effect.flatMap(exactSessionId(sessionId), (id) => sessionReadiness(conn, id, identity)),
      submit: (sessionId, command) =>
        Effect.flatMap(exactSessionId(sessionId), (id) =>
          inTransaction(conn, submit(id, command)).pipe(Effect.withSpan("Iterm2Terminal.submit"))
        ),
      commandOutput: (sessionId, promptId, bounds) =>
        Effect.flatMap(exactSessionId(sessionId), (id) =>
          readCommandOutput(conn, sessions.promptStart, id, promptId, bounds)
        ),
      outputLineCount: (sessionId, promptId) =>
        Effect.flatMap(exactSessionId(sessionId), (id) =>
          outputRowCount(conn, sessions.promptStart, id, promptId)
        ),
      interrupt: (sessionId, promptId) =>
        Effect.flatMap(exactSessionId(sessionId), (id) => interruptCommand(conn, claims, id, promptId)),
      sendKeys: (sessionId, bytes) =>
        Effect.flatMap(exactSessionId(sessionId), (id) => sendKeys(id, bytes)).pipe(
          Effect.withSpan("Iterm2Terminal.sendKeys")
        ),
      listCommands: (sessionId, limit, afterKey) =>
        Effect.flatMap(exactSessionId(sessionId), (id) => listCommands(conn, id, limit, afterKey)),
      commandText: (sessionId, key, bounds, from) =>
        Effect.flatMap(exactSessionId(sessionId), (id) => commandText(conn, id, key, bounds, from)),
      askApproval: makeIterm2Approval(conn, getSession)
    })
  })
)

/**
 * The Terminal over iTerm2, with this process's claims (released when the layer closes) and the
 * prompt starts its PromptTracker notes (the same Iterm2PromptSessionsLive, built once per build).
 */
export const Iterm2TerminalLive = Iterm2TerminalWithClaims.pipe(
  Layer.provide(Layer.merge(Iterm2ClaimsLive, Iterm2PromptSessionsLive))
)
