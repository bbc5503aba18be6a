/**
 * The commands of an iTerm2 session (the Terminal's listCommands and commandText): listed from
 * iTerm2's own prompt list (ListPrompts, then GetPrompt for the newest, one batch per round trip),
 * and exactly one command's output read by rows from its output range, fetching only the rows the
 * read returns. No transaction: positions are absolute, so rows that leave the history between two
 * requests come back missing and are counted as lost. The rules are src/domain/iterm2/'s
 * (PromptCommands.ts, OutputSlice.ts).
 */
import { Effect } from "effect"
import { needsOverflow, sliceOf, sliceText } from "../../../domain/iterm2/OutputSlice.js"
import {
  commandState,
  commandsOf,
  idsAfter,
  NO_OUTPUT_RANGE,
  outputSpanOf,
  type PromptCommand
} from "../../../domain/iterm2/PromptCommands.js"
import type { GetPromptResponse } from "../../../generated/iterm2/Iterm2Messages.js"
import { fail, sessionNotFound, type TermPilotError } from "../../../services/Errors.js"
import type { CommandRecord, CommandText, OutputFrom, ReadBounds } from "../../../services/Terminal.js"
import {
  callFor,
  getLines,
  linesOverflow,
  promptOf,
  promptRequest,
  replyField,
  unavailable
} from "./Calls.js"
import type { Iterm2Connection } from "./ConnectionService.js"

type Conn = Iterm2Connection["Service"]

/** Prompts asked for in one round trip, at most. */
const BATCH = 100

/** The session's prompt ids, oldest first; from `first` on when given (none when it is not there). */
const promptIds = (
  conn: Conn,
  sessionId: string,
  first?: string
): Effect.Effect<ReadonlyArray<string>, TermPilotError> =>
  callFor(
    conn,
    {
      list_prompts_request:
        first === undefined ? { session: sessionId } : { session: sessionId, first_unique_id: first }
    },
    "list_prompts_response"
  ).pipe(
    Effect.flatMap((reply) =>
      reply.status === "SESSION_NOT_FOUND"
        ? Effect.fail(sessionNotFound(sessionId))
        : Effect.succeed(reply.unique_prompt_id ?? [])
    )
  )

/** The prompts `ids`, asked for at once, in order; undefined for one iTerm2 no longer has. */
const promptsOf = (
  conn: Conn,
  sessionId: string,
  ids: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<GetPromptResponse | undefined>, TermPilotError> =>
  Effect.flatMap(
    Effect.mapError(conn.callAll(ids.map((id) => promptRequest(sessionId, id))), unavailable),
    (replies) =>
      Effect.forEach(replies, (reply) =>
        Effect.flatMap(replyField(reply, "get_prompt_response"), promptOf(sessionId))
      )
  )

/**
 * The newest `limit` commands of the session (after `afterKey` when the list holds it), oldest
 * first: prompts asked for newest first, a batch at a time, until enough are commands.
 */
export const listCommands = (
  conn: Conn,
  sessionId: string,
  limit: number,
  afterKey: string | null
): Effect.Effect<ReadonlyArray<CommandRecord>, TermPilotError> =>
  Effect.gen(function* () {
    const ids = idsAfter(yield* promptIds(conn, sessionId), afterKey)
    const found: Array<PromptCommand> = []
    let end = ids.length
    let newer: GetPromptResponse | undefined
    while (found.length < limit && end > 0) {
      // One more than still wanted: the newest prompt is usually the one being typed at.
      const start = Math.max(0, end - Math.min(BATCH, limit - found.length + 1))
      const batch = ids.slice(start, end)
      const step = commandsOf(batch, yield* promptsOf(conn, sessionId, batch), newer)
      found.push(...step.commands)
      if (step.gone) break
      newer = step.oldest
      end = start
    }
    return found.slice(0, limit).reverse()
  }).pipe(Effect.withSpan("Iterm2Terminal.listCommands"))

const unknownCommand = (sessionId: string, key: string) =>
  fail(
    "invalid_request",
    `Session '${sessionId}' has no command '${key}' in its history: list_commands gives the commands it holds (a command leaves with its prompt's line).`
  )

/**
 * The output of the command typed at prompt `key`, bounded from `from`. The key must be in the
 * session's prompt list (else `invalid_request`, nothing else read); no output range (it never
 * started) is `output_unavailable`. Its end is the next prompt's start, so no neighbour's row is read.
 */
export const commandText = (
  conn: Conn,
  sessionId: string,
  key: string,
  bounds: ReadBounds,
  from: OutputFrom
): Effect.Effect<CommandText, TermPilotError> =>
  Effect.gen(function* () {
    // iTerm2 tests the id's presence: an empty one is never sent.
    if (key === "") return yield* unknownCommand(sessionId, key)
    const later = yield* promptIds(conn, sessionId, key)
    if (later[0] !== key) return yield* unknownCommand(sessionId, key)
    const [prompt, next] = yield* promptsOf(conn, sessionId, later.slice(0, 2))
    if (prompt === undefined) return yield* unknownCommand(sessionId, key)
    const span = outputSpanOf(prompt, next)
    const state = commandState(prompt, next)
    if (span === null || state === null)
      return yield* fail(
        "output_unavailable",
        `The output of command '${key}' is unavailable: ${NO_OUTPUT_RANGE}.`
      )
    const slice = sliceOf(span, from, bounds.maxLines)
    const window = slice.window
    const rows =
      window === null ? [] : ((yield* getLines(conn, sessionId, window.first, window.end)).contents ?? [])
    // Asked after the rows: lines gone by then before the window are lost to this read too.
    const overflow = needsOverflow(slice) ? yield* linesOverflow(conn, sessionId) : null
    return { ...sliceText(span, slice, from, rows, overflow, bounds), ...state }
  }).pipe(Effect.withSpan("Iterm2Terminal.commandText"))
