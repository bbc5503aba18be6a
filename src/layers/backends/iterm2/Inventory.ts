/**
 * The iTerm2 session inventory: the layout from ListSessions and the focused session from Focus
 * (read in parallel; the pure rules are src/domain/iterm2/Layout.ts), and per-session metadata
 * fetched with ONE variable request and ONE prompt request per session (SessionVariables.ts), many
 * sessions' requests sent at once.
 */
import { Effect } from "effect"
import { CLAIM_VARIABLE } from "../../../domain/iterm2/ClaimVariable.js"
import { focusedSession, type Placement, placements } from "../../../domain/iterm2/Layout.js"
import { promptReadiness } from "../../../domain/iterm2/PromptReadiness.js"
import { METADATA_VARIABLES, metadataValue, toSessionInfo } from "../../../domain/iterm2/SessionVariables.js"
import type { GetPromptResponse } from "../../../generated/iterm2/Iterm2Messages.js"
import type { TermPilotError } from "../../../services/Errors.js"
import type { SessionInfo } from "../../../services/Terminal.js"
import {
  callFor,
  promptAndVariables,
  promptAndVariablesOf,
  promptRequest,
  unavailable,
  variablesRequest
} from "./Calls.js"
import { type ClaimIdentity, claimedReadiness } from "./Claims.js"
import { hostsClient } from "./ClientSession.js"
import type { Iterm2Connection } from "./ConnectionService.js"

type Conn = Iterm2Connection["Service"]

/** The layout and the focused session id, read in parallel. */
export const readLayout = (
  conn: Conn
): Effect.Effect<
  { readonly sessions: ReadonlyArray<Placement>; readonly current: string | null },
  TermPilotError
> =>
  Effect.all(
    [
      callFor(conn, { list_sessions_request: {} }, "list_sessions_response"),
      callFor(conn, { focus_request: {} }, "focus_response")
    ],
    { concurrency: 2 }
  ).pipe(
    Effect.map(([layout, focus]) => {
      const sessions = placements(layout)
      return { sessions, current: focusedSession(sessions, focus.notifications ?? []) }
    })
  )

/**
 * A placed session's full metadata and readiness, from its prompt and its METADATA_VARIABLES (not
 * `ready` while another TermPilot process's claim stands).
 */
const describedAs = (
  identity: ClaimIdentity,
  placement: Placement,
  current: string | null,
  prompt: GetPromptResponse | undefined,
  values: ReadonlyArray<unknown>
): SessionInfo =>
  toSessionInfo(
    placement,
    current,
    values,
    claimedReadiness(
      identity,
      promptReadiness(prompt, metadataValue(values, "showingAlternateScreen")),
      metadataValue(values, CLAIM_VARIABLE)
    ),
    hostsClient(metadataValue(values, "pid"), metadataValue(values, "tty"))
  )

/** Full metadata and readiness of one placed session: two requests, sent at once. */
export const describe = (
  conn: Conn,
  identity: ClaimIdentity,
  placement: Placement,
  current: string | null
): Effect.Effect<SessionInfo, TermPilotError> =>
  promptAndVariables(conn, placement.sessionId, METADATA_VARIABLES).pipe(
    Effect.map(([prompt, values]) => describedAs(identity, placement, current, prompt, values))
  )

/**
 * Every placed session described, DESCRIBE_CONCURRENCY sessions (two requests each) sent at once
 * per round trip; a session that closed since the layout was read (`session_not_found`) is left
 * out, any other failure fails the listing.
 */
export const describeAll = (
  conn: Conn,
  identity: ClaimIdentity,
  placed: ReadonlyArray<Placement>,
  current: string | null
): Effect.Effect<ReadonlyArray<SessionInfo>, TermPilotError> =>
  Effect.gen(function* () {
    const described: Array<SessionInfo> = []
    for (let at = 0; at < placed.length; at += DESCRIBE_CONCURRENCY) {
      const chunk = placed.slice(at, at + DESCRIBE_CONCURRENCY)
      const requests = chunk.flatMap((p) => [
        promptRequest(p.sessionId),
        variablesRequest(p.sessionId, METADATA_VARIABLES)
      ])
      const replies = yield* Effect.mapError(conn.callAll(requests), unavailable)
      for (const [i, placement] of chunk.entries()) {
        const pair = replies.slice(2 * i, 2 * i + 2)
        const found = yield* promptAndVariablesOf(placement.sessionId, METADATA_VARIABLES, pair).pipe(
          Effect.map(([prompt, values]) => describedAs(identity, placement, current, prompt, values)),
          Effect.catchIf(
            (e) => e.code === "session_not_found",
            () => Effect.succeed(undefined)
          )
        )
        if (found !== undefined) described.push(found)
      }
    }
    return described
  })

/** Sessions described per round trip (two requests each), so a huge layout cannot flood the socket. */
export const DESCRIBE_CONCURRENCY = 16
