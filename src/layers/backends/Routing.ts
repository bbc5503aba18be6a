/**
 * BackendRouting — several terminal backends (iTerm2, tmux) presented as the one Terminal and
 * PromptTracker the tools and CommandRunner see. `listSessions` merges the backends that are
 * there; every other call goes to the one backend that owns the id's form and never falls through
 * to another. A backend that is absent contributes nothing; one that fails, its own errors only.
 */
import { Effect, Result } from "effect"
import { fail, sessionNotFound, type TermPilotError } from "../../services/Errors.js"
import type { PromptTracker } from "../../services/PromptTracker.js"
import {
  listingOf,
  type SessionInfo,
  type SessionListing,
  type Terminal,
  type UnavailableSource
} from "../../services/Terminal.js"

type TerminalShape = Terminal["Service"]
type TrackerShape = PromptTracker["Service"]

export interface BackendPart {
  readonly name: SessionInfo["backend"]
  /** Whether a session id has this backend's form (whether or not such a session exists). */
  readonly owns: (sessionId: string) => boolean
  /**
   * Whether the backend is there right now. An absent backend lists nothing and reports no error;
   * `absence` says where it was looked for, for when no backend at all is there.
   */
  readonly present: Effect.Effect<boolean>
  readonly absence: TermPilotError
  readonly terminal: TerminalShape
  readonly tracker: TrackerShape
}

/** The parts that are there now, in order. */
const presentParts = (parts: ReadonlyArray<BackendPart>) =>
  Effect.filter(parts, (part) => part.present, { concurrency: "unbounded" })

/** When no backend is there: one error naming where each was looked for. */
const nothingThere = (parts: ReadonlyArray<BackendPart>): TermPilotError => {
  const [first] = parts
  if (first === undefined) return fail("internal_error", "No terminal backend is enabled.")
  if (parts.length === 1) return first.absence
  return fail(first.absence.code, parts.map((part) => part.absence.message).join(" "))
}

export const routedTerminal = (parts: ReadonlyArray<BackendPart>): TerminalShape => {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0].terminal
  const ownerOf = (sessionId: string): Effect.Effect<TerminalShape, TermPilotError> => {
    const part = parts.find((p) => p.owns(sessionId))
    return part === undefined ? Effect.fail(sessionNotFound(sessionId)) : Effect.succeed(part.terminal)
  }

  const listing = Effect.gen(function* () {
    const here = yield* presentParts(parts)
    if (here.length === 0) return yield* nothingThere(parts)
    const lists = yield* Effect.forEach(here, (part) => Effect.result(listingOf(part.terminal)), {
      concurrency: "unbounded"
    })
    const sessions: Array<SessionInfo> = []
    const unavailable: Array<UnavailableSource> = []
    const errors: Array<TermPilotError> = []
    lists.forEach((list, i) => {
      if (Result.isSuccess(list)) {
        sessions.push(...list.success.sessions)
        unavailable.push(...list.success.unavailable)
      } else {
        errors.push(list.failure)
        unavailable.push({
          backend: here[i]!.name,
          host: null,
          error_code: list.failure.code,
          message: list.failure.message
        })
      }
    })
    // One backend failing hides nothing of the others; only when every backend failed is it an error.
    if (errors.length === lists.length && errors[0] !== undefined) return yield* errors[0]
    for (const error of errors)
      yield* Effect.logWarning(`a terminal backend failed to list: ${error.message}`)
    return { sessions, unavailable } satisfies SessionListing
  })
  const listSessions = Effect.map(listing, (l) => l.sessions)

  /** The first backend (in order) that has a current session. */
  const currentSession = Effect.gen(function* () {
    const here = yield* presentParts(parts)
    if (here.length === 0) return yield* nothingThere(parts)
    let firstError: TermPilotError | undefined
    for (const part of here) {
      const current = yield* Effect.result(part.terminal.currentSession)
      if (Result.isSuccess(current)) return current.success
      firstError ??= current.failure
    }
    return yield* firstError ?? fail("no_current_session", "No terminal has a current session.")
  })

  return {
    listSessions,
    listing,
    currentSession,
    getSession: (id) => Effect.flatMap(ownerOf(id), (t) => t.getSession(id)),
    sessionLabels: (id) => Effect.flatMap(ownerOf(id), (t) => t.sessionLabels(id)),
    read: (id, bounds, since) => Effect.flatMap(ownerOf(id), (t) => t.read(id, bounds, since)),
    readiness: (id) => Effect.flatMap(ownerOf(id), (t) => t.readiness(id)),
    submit: (id, command) => Effect.flatMap(ownerOf(id), (t) => t.submit(id, command)),
    commandOutput: (id, promptId, bounds) =>
      Effect.flatMap(ownerOf(id), (t) => t.commandOutput(id, promptId, bounds)),
    outputLineCount: (id, promptId) => Effect.flatMap(ownerOf(id), (t) => t.outputLineCount(id, promptId)),
    interrupt: (id, promptId) => Effect.flatMap(ownerOf(id), (t) => t.interrupt(id, promptId)),
    sendKeys: (id, bytes) => Effect.flatMap(ownerOf(id), (t) => t.sendKeys(id, bytes)),
    listCommands: (id, limit, afterKey) =>
      Effect.flatMap(ownerOf(id), (t) => t.listCommands(id, limit, afterKey)),
    commandText: (id, key, bounds, from) =>
      Effect.flatMap(ownerOf(id), (t) => t.commandText(id, key, bounds, from)),
    askApproval: (id, request) => Effect.flatMap(ownerOf(id), (t) => t.askApproval(id, request))
  }
}

export const routedTracker = (parts: ReadonlyArray<BackendPart>): TrackerShape => {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0].tracker
  return {
    watch: (id) => {
      const part = parts.find((p) => p.owns(id))
      return part === undefined ? Effect.fail(sessionNotFound(id)) : part.tracker.watch(id)
    }
  }
}
