/**
 * The iTerm2 session inventory: windows → tabs → split panes (and buried sessions) from
 * ListSessions, the focused session from Focus, and per-session metadata fetched with ONE
 * variable request and ONE prompt request per session, all sessions in parallel.
 */
import { Effect } from "effect"
import type {
  FocusChangedNotification,
  GetPromptResponse,
  ListSessionsResponse,
  SessionSummary,
  SplitTreeNode
} from "../../../generated/iterm2/Iterm2Messages.js"
import type { TermPilotError } from "../../../services/Errors.js"
import type { SessionInfo } from "../../../services/Terminal.js"
import {
  asString,
  callFor,
  promptAndVariables,
  promptAndVariablesOf,
  promptRequest,
  unavailable,
  variablesRequest
} from "./Calls.js"
import { CLAIM_VARIABLE, type ClaimIdentity, claimedReadiness } from "./Claims.js"
import type { Iterm2Connection } from "./ConnectionService.js"
import { verdict } from "./Readiness.js"

type Conn = Iterm2Connection["Service"]

/** Where a session sits in iTerm2's layout. */
export interface Placement {
  readonly sessionId: string
  readonly windowId: string | null
  readonly windowNumber: number | null
  readonly tabId: string | null
  readonly summaryTitle: string | null
  readonly buried: boolean
}

const flatten = (node: SplitTreeNode | undefined): ReadonlyArray<SessionSummary> =>
  (node?.links ?? []).flatMap((link) =>
    link.session !== undefined ? [link.session] : link.node !== undefined ? flatten(link.node) : []
  )

/** Every session in view order (windows, tabs, depth-first panes), then buried ones; ids deduplicated. */
export const placements = (layout: ListSessionsResponse): ReadonlyArray<Placement> => {
  const seen = new Set<string>()
  const out: Array<Placement> = []
  const add = (summary: SessionSummary, p: Omit<Placement, "sessionId" | "summaryTitle">) => {
    const id = summary.unique_identifier
    if (id === undefined || id === "" || seen.has(id)) return
    seen.add(id)
    out.push({ ...p, sessionId: id, summaryTitle: asString(summary.title) })
  }
  for (const window of layout.windows ?? []) {
    for (const tab of window.tabs ?? []) {
      const where = {
        windowId: window.window_id ?? null,
        windowNumber: window.number ?? null,
        tabId: tab.tab_id ?? null,
        buried: false
      }
      for (const s of [...flatten(tab.root), ...(tab.minimized_sessions ?? [])]) add(s, where)
    }
  }
  for (const s of layout.buried_sessions ?? []) {
    add(s, { windowId: null, windowNumber: null, tabId: null, buried: true })
  }
  return out
}

/**
 * The focused session from a FocusResponse, as Python's App derives it: the current window's
 * selected tab's active session. Entries naming unknown windows, tabs or sessions are ignored.
 */
export const focusedSession = (
  layout: ReadonlyArray<Placement>,
  focus: ReadonlyArray<FocusChangedNotification>
): string | null => {
  let currentWindow: string | null = null
  const selectedTab = new Map<string, string>()
  const activeSession = new Map<string, string>()
  const windowOfTab = new Map(layout.map((p) => [p.tabId, p.windowId] as const))
  const tabOfSession = new Map(layout.map((p) => [p.sessionId, p.tabId] as const))
  for (const entry of focus) {
    if (entry.window !== undefined) {
      const status = entry.window.window_status ?? "TERMINAL_WINDOW_BECAME_KEY"
      if (status !== "TERMINAL_WINDOW_RESIGNED_KEY" && entry.window.window_id !== undefined) {
        currentWindow = entry.window.window_id
      }
    } else if (entry.selected_tab !== undefined) {
      const w = windowOfTab.get(entry.selected_tab)
      if (w !== undefined && w !== null) selectedTab.set(w, entry.selected_tab)
    } else if (entry.session !== undefined) {
      const t = tabOfSession.get(entry.session)
      if (t !== undefined && t !== null) activeSession.set(t, entry.session)
    }
  }
  if (currentWindow === null) return null
  const tab = selectedTab.get(currentWindow)
  return tab === undefined ? null : (activeSession.get(tab) ?? null)
}

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

/** Session-scope variables fetched for every session, in one request. */
/** The variables a session's titles come from: its name, presentation name, tab and window titles. */
export const LABEL_VARIABLES = ["name", "presentationName", "tab.title", "tab.window.title"] as const

export const METADATA_VARIABLES = [
  "name",
  "presentationName",
  "tab.title",
  "tab.window.title",
  "hostname",
  "username",
  "path",
  "tty",
  "jobName",
  "showingAlternateScreen",
  "profileName",
  "user.termpilot_tag",
  CLAIM_VARIABLE
] as const

/**
 * A placed session's full metadata and readiness, from its prompt and its METADATA_VARIABLES (not
 * `ready` while another TermPilot process's claim stands).
 */
const sessionInfo = (
  identity: ClaimIdentity,
  placement: Placement,
  current: string | null,
  prompt: GetPromptResponse | undefined,
  values: ReadonlyArray<unknown>
): SessionInfo => {
  const value = (name: (typeof METADATA_VARIABLES)[number]) => values[METADATA_VARIABLES.indexOf(name)]
  const text = (name: (typeof METADATA_VARIABLES)[number]) => asString(value(name))
  return {
    session_id: placement.sessionId,
    backend: "iterm2",
    window_id: placement.windowId,
    tab_id: placement.tabId,
    window_number: placement.windowNumber,
    window_title: text("tab.window.title"),
    tab_title: text("tab.title"),
    session_title: text("name") ?? text("presentationName") ?? placement.summaryTitle,
    hostname: text("hostname"),
    username: text("username"),
    cwd: text("path"),
    tty: text("tty"),
    job_name: text("jobName"),
    profile_name: text("profileName"),
    via: null,
    tag: text("user.termpilot_tag"),
    is_current: placement.sessionId === current,
    buried: placement.buried,
    execution_readiness: claimedReadiness(
      identity,
      verdict(prompt, value("showingAlternateScreen")),
      value(CLAIM_VARIABLE)
    )
  }
}

/** Full metadata and readiness of one placed session: two requests, sent at once. */
export const describe = (
  conn: Conn,
  identity: ClaimIdentity,
  placement: Placement,
  current: string | null
): Effect.Effect<SessionInfo, TermPilotError> =>
  promptAndVariables(conn, placement.sessionId, METADATA_VARIABLES).pipe(
    Effect.map(([prompt, values]) => sessionInfo(identity, placement, current, prompt, values))
  )

/**
 * Every placed session described, DESCRIBE_CONCURRENCY sessions (two requests each) sent at once
 * per round trip; a session that closed since the layout was read (`session_not_found`) is left
 * out, any other failure fails the listing.
 */
export const describeAll = (
  conn: Conn,
  identity: ClaimIdentity,
  placements: ReadonlyArray<Placement>,
  current: string | null
): Effect.Effect<ReadonlyArray<SessionInfo>, TermPilotError> =>
  Effect.gen(function* () {
    const described: Array<SessionInfo> = []
    for (let at = 0; at < placements.length; at += DESCRIBE_CONCURRENCY) {
      const chunk = placements.slice(at, at + DESCRIBE_CONCURRENCY)
      const requests = chunk.flatMap((p) => [
        promptRequest(p.sessionId),
        variablesRequest(p.sessionId, METADATA_VARIABLES)
      ])
      const replies = yield* Effect.mapError(conn.callAll(requests), unavailable)
      for (const [i, placement] of chunk.entries()) {
        const pair = replies.slice(2 * i, 2 * i + 2)
        const found = yield* promptAndVariablesOf(placement.sessionId, METADATA_VARIABLES, pair).pipe(
          Effect.map(([prompt, values]) => sessionInfo(identity, placement, current, prompt, values)),
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
