/**
 * Typed request helpers over Iterm2Connection for the iTerm2 backend: each sends one request,
 * checks that the expected reply came back, and turns iTerm2 failures into TermPilotErrors with
 * stable codes (iterm2_unavailable, session_not_found, shell_integration_required); plus the one
 * way to type into a session and the transaction wrapper of the check-then-send operations.
 */
import { Effect, Option, Ref } from "effect"
import { overflowOf } from "../../../domain/iterm2/HistoryPosition.js"
import { iterm2IdRefusal } from "../../../domain/iterm2/Iterm2Id.js"
import { parseJson } from "../../../domain/iterm2/VariableValue.js"
import type {
  ClientRequest,
  GetBufferResponse,
  GetPromptResponse,
  LineRange,
  ServerResponse,
  VariableResponse
} from "../../../generated/iterm2/Iterm2Messages.js"
import {
  fail,
  outcomeUnknown,
  type SendError,
  sessionNotFound,
  type TermPilotError
} from "../../../services/Errors.js"
import type { Iterm2Connection, Iterm2Error } from "./ConnectionService.js"

type Conn = Iterm2Connection["Service"]

export const unavailable = (error: Iterm2Error): TermPilotError =>
  fail("iterm2_unavailable", error.message, error)

/** A transaction's own failure (begin/end) as iTerm2 being unavailable; others pass through. */
export const orUnavailable = <E extends SendError = TermPilotError>(
  error: E | Iterm2Error
): E | TermPilotError => (error._tag === "Iterm2Error" ? unavailable(error) : error)

/**
 * Only an exact session GUID may reach iTerm2 (src/domain/iterm2/Iterm2Id.ts): passed through, a
 * caller's "active" would read or type into whatever has focus. Anything else is not found, before
 * any request.
 */
export const exactSessionId = (sessionId: string): Effect.Effect<string, TermPilotError> => {
  const refused = iterm2IdRefusal(sessionId)
  return refused === null ? Effect.succeed(sessionId) : Effect.fail(refused)
}

/**
 * The submessage `field` of one reply (or the failure of its request, as iterm2_unavailable). A
 * missing reply (a `callAll` answer shorter than its requests) is a defect.
 */
export const replyField = <K extends keyof ServerResponse>(
  reply: Effect.Effect<ServerResponse, Iterm2Error> | undefined,
  field: K
): Effect.Effect<NonNullable<ServerResponse[K]>, TermPilotError> =>
  (reply ?? Effect.die(new Error(`no reply carrying ${String(field)}`))).pipe(
    Effect.mapError(unavailable),
    Effect.flatMap((response) => {
      const value = response[field]
      return value === undefined
        ? Effect.fail(fail("iterm2_unavailable", `iTerm2 answered without a ${String(field)}.`))
        : Effect.succeed(value as NonNullable<ServerResponse[K]>)
    })
  )

/** One request whose reply must carry `field`; anything else is a protocol failure. */
export const callFor = <K extends keyof ServerResponse>(
  conn: Conn,
  request: ClientRequest,
  field: K
): Effect.Effect<NonNullable<ServerResponse[K]>, TermPilotError> => replyField(conn.call(request), field)

/** The request for the last prompt (or the prompt `promptId`) of a session. */
export const promptRequest = (sessionId: string, promptId?: string): ClientRequest => ({
  get_prompt_request:
    promptId === undefined ? { session: sessionId } : { session: sessionId, unique_prompt_id: promptId }
})

/** What a prompt reply says: the prompt, `undefined` when the session has none. */
export const promptOf =
  (sessionId: string) =>
  (reply: GetPromptResponse): Effect.Effect<GetPromptResponse | undefined, TermPilotError> => {
    switch (reply.status ?? "OK") {
      case "OK":
        return Effect.succeed(reply)
      case "PROMPT_UNAVAILABLE":
        return Effect.succeed(undefined)
      case "SESSION_NOT_FOUND":
        return Effect.fail(sessionNotFound(sessionId))
      default:
        return Effect.fail(
          fail("iterm2_unavailable", `iTerm2 rejected the prompt request (${reply.status}).`)
        )
    }
  }

/** The last prompt (or the prompt `promptId`) of a session; `undefined` when it has none. */
export const getPrompt = (
  conn: Conn,
  sessionId: string,
  promptId?: string
): Effect.Effect<GetPromptResponse | undefined, TermPilotError> =>
  Effect.flatMap(
    callFor(conn, promptRequest(sessionId, promptId), "get_prompt_response"),
    promptOf(sessionId)
  )

/** The request for session-scope variables, all names at once. */
export const variablesRequest = (sessionId: string, names: ReadonlyArray<string>): ClientRequest => ({
  variable_request: { session_id: sessionId, get: names }
})

/** What a variables reply says: each name's value, null when unset or unparsable. */
export const variablesOf =
  (sessionId: string, names: ReadonlyArray<string>) =>
  (reply: VariableResponse): Effect.Effect<ReadonlyArray<unknown>, TermPilotError> => {
    const status = reply.status ?? "OK"
    if (status === "SESSION_NOT_FOUND") return Effect.fail(sessionNotFound(sessionId))
    if (status !== "OK") return Effect.succeed(names.map(() => null))
    return Effect.succeed(names.map((_, i) => parseJson(reply.values?.[i])))
  }

/** Session-scope variables, one request for all names; unset or unparsable values are null. */
export const getVariables = (
  conn: Conn,
  sessionId: string,
  names: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<unknown>, TermPilotError> =>
  Effect.flatMap(
    callFor(conn, variablesRequest(sessionId, names), "variable_response"),
    variablesOf(sessionId, names)
  )

/** Both replies of a `promptAndVariablesRequests` pair, interpreted: the prompt, then the values. */
export const promptAndVariablesOf = (
  sessionId: string,
  names: ReadonlyArray<string>,
  [prompt, variables]: ReadonlyArray<Effect.Effect<ServerResponse, Iterm2Error>>
): Effect.Effect<readonly [GetPromptResponse | undefined, ReadonlyArray<unknown>], TermPilotError> =>
  Effect.all([
    Effect.flatMap(replyField(prompt, "get_prompt_response"), promptOf(sessionId)),
    Effect.flatMap(replyField(variables, "variable_response"), variablesOf(sessionId, names))
  ])

/** A session's last prompt and some of its variables, both requests sent at once. */
export const promptAndVariables = (conn: Conn, sessionId: string, names: ReadonlyArray<string>) =>
  conn.callAll([promptRequest(sessionId), variablesRequest(sessionId, names)]).pipe(
    Effect.mapError(unavailable),
    Effect.flatMap((replies) => promptAndVariablesOf(sessionId, names, replies))
  )

/** Lines of a session's buffer for one line range. */
export const getBuffer = (
  conn: Conn,
  sessionId: string,
  lineRange: LineRange
): Effect.Effect<GetBufferResponse, TermPilotError> =>
  callFor(
    conn,
    { get_buffer_request: { session: sessionId, line_range: lineRange, include_styles: false } },
    "get_buffer_response"
  ).pipe(
    Effect.flatMap((reply) => {
      switch (reply.status ?? "OK") {
        case "OK":
          return Effect.succeed(reply)
        case "SESSION_NOT_FOUND":
          return Effect.fail(sessionNotFound(sessionId))
        default:
          return Effect.fail(
            fail("output_unavailable", `iTerm2 could not read the buffer (${reply.status}).`)
          )
      }
    })
  )

/** Absolute lines `[first, end)` of a session (whole lines, no column window). */
/** Lines that left the session's history so far (`number_of_lines`' overflow, §4.1); null when iTerm2 does not say. */
export const linesOverflow = (conn: Conn, sessionId: string): Effect.Effect<number | null, TermPilotError> =>
  Effect.map(
    callFor(
      conn,
      { get_property_request: { session_id: sessionId, name: "number_of_lines" } },
      "get_property_response"
    ),
    overflowOf
  )

export const getLines = (conn: Conn, sessionId: string, first: number, end: number) =>
  getBuffer(conn, sessionId, {
    windowed_coord_range: {
      coord_range: { start: { x: 0, y: first }, end: { x: 0, y: end } },
      columns: { location: 0, length: 0 }
    }
  })

/**
 * Types `text` into exactly `sessionId`, broadcast suppressed. Once the request may have left, a
 * failure is a `SendOutcomeUnknown` (`iterm2_unavailable`); `what` names what
 * may have arrived ("the command").
 */
export const sendText = (
  conn: Conn,
  sessionId: string,
  text: string,
  what: string
): Effect.Effect<void, SendError> => {
  const unknown = (detail: string) =>
    outcomeUnknown("iterm2_unavailable", `${detail} may or may not have reached session '${sessionId}'.`)
  return conn.call({ send_text_request: { session: sessionId, text, suppress_broadcast: true } }).pipe(
    Effect.mapError((e) => unknown(`${e.message} ${what.charAt(0).toUpperCase()}${what.slice(1)}`)),
    Effect.flatMap((reply): Effect.Effect<void, SendError> => {
      const status = reply.send_text_response?.status ?? (reply.send_text_response ? "OK" : "MISSING")
      if (status === "OK") return Effect.void
      if (status === "SESSION_NOT_FOUND") return Effect.fail(sessionNotFound(sessionId))
      return Effect.fail(unknown(`iTerm2 gave no send-text reply; ${what}`))
    })
  )
}

/**
 * `body` (a check and then a send) inside one transaction. Once `body` succeeded (iTerm2 confirmed
 * the send), a failure to end the transaction does not turn the outcome into a failure.
 */
export const inTransaction = <A, E extends SendError = TermPilotError>(
  conn: Conn,
  body: Effect.Effect<A, E>
): Effect.Effect<A, E | TermPilotError> =>
  Effect.gen(function* () {
    const confirmed = yield* Ref.make(Option.none<A>())
    return yield* body.pipe(
      Effect.tap((a) => Ref.set(confirmed, Option.some(a))),
      conn.transaction,
      Effect.catch((e) =>
        Effect.flatMap(Ref.get(confirmed), (done) =>
          Option.isSome(done) ? Effect.succeed(done.value) : Effect.fail(orUnavailable(e))
        )
      )
    )
  })
