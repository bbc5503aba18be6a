/**
 * Layout — where iTerm2's sessions sit, pure: windows → tabs → split panes (and minimized and
 * buried sessions) from a ListSessions reply, in view order with ids deduplicated, and the focused
 * session from a Focus reply, derived as iTerm2's Python App does.
 */
import type {
  FocusChangedNotification,
  ListSessionsResponse,
  SessionSummary,
  SplitTreeNode
} from "../../generated/iterm2/Iterm2Messages.js"
import { asString } from "./VariableValue.js"

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
