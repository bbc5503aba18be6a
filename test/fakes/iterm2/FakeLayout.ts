/**
 * FakeLayout — the fake iTerm2's windows, tabs, split-pane trees and buried sessions, plus focus
 * (current window, each window's selected tab, each tab's active session), rendered as the
 * ListSessionsResponse and FocusResponse iTerm2 would send. No PTYs here: sessions are ids.
 */
import { randomUUID } from "node:crypto"
import type {
  FocusChangedNotification,
  Frame,
  ListSessionsResponse,
  SessionSummary,
  SplitTreeNode
} from "../../../src/generated/iterm2/Iterm2Messages.js"

/** A split node: `vertical` = children side by side. Leaves are session ids. */
export interface LayoutNode {
  vertical: boolean
  children: Array<LayoutNode | string>
}
export interface LayoutTab {
  readonly id: string
  readonly windowId: string
  root: LayoutNode
  activeSessionId: string
  titleOverride: string | null
}
export interface LayoutWindow {
  readonly id: string
  readonly number: number
  readonly tabs: Array<LayoutTab>
  selectedTabId: string
  titleOverride: string | null
}
export interface SessionGeometry {
  readonly cols: number
  readonly rows: number
  readonly title: string
}

const CELL_W = 7
const CELL_H = 14

export class FakeLayout {
  readonly windows: Array<LayoutWindow> = []
  readonly buried: Array<string> = []
  currentWindowId: string | null = null
  appActive = true
  private nextTab = 1
  private nextWindowNumber = 0

  addWindow(sessionId: string): LayoutWindow {
    const id = `pty-${randomUUID().toUpperCase()}`
    const window: LayoutWindow = {
      id,
      number: this.nextWindowNumber++,
      tabs: [],
      selectedTabId: "",
      titleOverride: null
    }
    this.windows.push(window)
    this.addTab(window, sessionId)
    this.currentWindowId = id
    return window
  }

  addTab(window: LayoutWindow, sessionId: string): LayoutTab {
    const tab: LayoutTab = {
      id: String(this.nextTab++),
      windowId: window.id,
      root: { vertical: false, children: [sessionId] },
      activeSessionId: sessionId,
      titleOverride: null
    }
    window.tabs.push(tab)
    window.selectedTabId = tab.id
    return tab
  }

  /** Puts `newId` next to `targetId`; `vertical` = side by side (iTerm2's vertical divider). */
  split(targetId: string, newId: string, vertical: boolean, before: boolean): LayoutTab {
    const place = this.locate(targetId)
    if (place === undefined) throw new Error(`FakeLayout: session ${targetId} is not in a tab`)
    const parent = findParent(place.tab.root, targetId)!
    const index = parent.children.indexOf(targetId)
    if (parent.vertical === vertical || parent.children.length === 1) {
      parent.vertical = vertical
      parent.children.splice(before ? index : index + 1, 0, newId)
    } else {
      parent.children[index] = { vertical, children: before ? [newId, targetId] : [targetId, newId] }
    }
    place.tab.activeSessionId = newId
    return place.tab
  }

  bury(sessionId: string): void {
    this.buried.push(sessionId)
  }

  locate(sessionId: string): { window: LayoutWindow; tab: LayoutTab } | undefined {
    for (const window of this.windows) {
      for (const tab of window.tabs) if (sessionIds(tab.root).includes(sessionId)) return { window, tab }
    }
    return undefined
  }

  tab(tabId: string): LayoutTab | undefined {
    return this.windows.flatMap((w) => w.tabs).find((t) => t.id === tabId)
  }

  window(windowId: string): LayoutWindow | undefined {
    return this.windows.find((w) => w.id === windowId)
  }

  /** Removes a session; empty tabs and windows go too, and focus moves to a neighbour. */
  remove(sessionId: string): void {
    const buriedAt = this.buried.indexOf(sessionId)
    if (buriedAt >= 0) this.buried.splice(buriedAt, 1)
    const place = this.locate(sessionId)
    if (place === undefined) return
    const { window, tab } = place
    removeLeaf(tab.root, sessionId)
    const only = tab.root.children[0]
    if (tab.root.children.length === 1 && typeof only !== "string" && only !== undefined) tab.root = only
    const remaining = sessionIds(tab.root)
    if (remaining.length > 0) {
      if (tab.activeSessionId === sessionId) tab.activeSessionId = remaining[0]!
      return
    }
    window.tabs.splice(window.tabs.indexOf(tab), 1)
    if (window.selectedTabId === tab.id) window.selectedTabId = window.tabs[window.tabs.length - 1]?.id ?? ""
    if (window.tabs.length > 0) return
    this.windows.splice(this.windows.indexOf(window), 1)
    if (this.currentWindowId === window.id)
      this.currentWindowId = this.windows[this.windows.length - 1]?.id ?? null
  }

  /** The session "active" resolves to: current window → selected tab → active session. */
  activeSessionId(): string | undefined {
    const window = this.currentWindowId === null ? undefined : this.window(this.currentWindowId)
    return window?.tabs.find((t) => t.id === window.selectedTabId)?.activeSessionId
  }

  /** Makes `sessionId` the focused session; returns the FocusChanged notifications iTerm2 posts. */
  focus(sessionId: string): Array<FocusChangedNotification> {
    const place = this.locate(sessionId)
    if (place === undefined)
      throw new Error(`FakeLayout: session ${sessionId} is not in a tab (buried or gone)`)
    const { window, tab } = place
    const events: Array<FocusChangedNotification> = []
    if (this.currentWindowId !== window.id) {
      if (this.currentWindowId !== null) {
        events.push({
          window: { window_status: "TERMINAL_WINDOW_RESIGNED_KEY", window_id: this.currentWindowId }
        })
      }
      this.currentWindowId = window.id
      events.push({ window: { window_status: "TERMINAL_WINDOW_BECAME_KEY", window_id: window.id } })
    }
    if (window.selectedTabId !== tab.id) {
      window.selectedTabId = tab.id
      events.push({ selected_tab: tab.id })
    }
    if (tab.activeSessionId !== sessionId) {
      tab.activeSessionId = sessionId
      events.push({ session: sessionId })
    }
    return events
  }

  /** FocusResponse.notifications in iTerm2's order (§3.7). */
  focusList(): Array<FocusChangedNotification> {
    const list: Array<FocusChangedNotification> = [{ application_active: this.appActive }]
    if (this.currentWindowId === null)
      list.push({ window: { window_status: "TERMINAL_WINDOW_RESIGNED_KEY" } })
    else {
      const status = this.appActive ? "TERMINAL_WINDOW_BECAME_KEY" : "TERMINAL_WINDOW_IS_CURRENT"
      list.push({ window: { window_status: status, window_id: this.currentWindowId } })
    }
    for (const window of this.windows) {
      if (window.selectedTabId === "") continue
      list.push({ selected_tab: window.selectedTabId })
      for (const tab of window.tabs) list.push({ session: tab.activeSessionId })
    }
    return list
  }

  listSessions(geometry: (sessionId: string) => SessionGeometry): ListSessionsResponse {
    const windows = this.windows.map((window, index) => {
      const tabs = window.tabs.map((tab) => ({
        tab_id: tab.id,
        root: renderNode(tab.root, { x: 0, y: 0 }, geometry).node,
        tmux_window_id: "-1"
      }))
      const first = window.tabs[0]
      const size = first === undefined ? { width: 0, height: 0 } : measure(first.root, geometry)
      const frame: Frame = { origin: { x: 40 * index, y: 40 * index }, size }
      return { tabs, window_id: window.id, frame, number: window.number }
    })
    const buried_sessions = this.buried.map((id) => ({ unique_identifier: id, title: geometry(id).title }))
    return { windows, buried_sessions }
  }
}

export const sessionIds = (node: LayoutNode): Array<string> =>
  node.children.flatMap((c) => (typeof c === "string" ? [c] : sessionIds(c)))

const findParent = (node: LayoutNode, id: string): LayoutNode | undefined => {
  if (node.children.includes(id)) return node
  for (const c of node.children) {
    if (typeof c !== "string") {
      const found = findParent(c, id)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/** Removes a leaf and collapses split nodes left with one child, as iTerm2 does. */
const removeLeaf = (node: LayoutNode, id: string): void => {
  node.children = node.children.filter((c) => c !== id)
  node.children.forEach((c, i) => {
    if (typeof c === "string") return
    removeLeaf(c, id)
    if (c.children.length === 0) node.children[i] = ""
    else if (c.children.length === 1) node.children[i] = c.children[0]!
  })
  node.children = node.children.filter((c) => c !== "")
}

const measure = (
  node: LayoutNode | string,
  geometry: (id: string) => SessionGeometry
): { width: number; height: number } => {
  if (typeof node === "string") {
    const g = geometry(node)
    return { width: g.cols * CELL_W, height: g.rows * CELL_H }
  }
  const sizes = node.children.map((c) => measure(c, geometry))
  const divider = Math.max(0, sizes.length - 1)
  return node.vertical
    ? {
        width: sizes.reduce((s, z) => s + z.width, 0) + divider,
        height: Math.max(0, ...sizes.map((z) => z.height))
      }
    : {
        width: Math.max(0, ...sizes.map((z) => z.width)),
        height: sizes.reduce((s, z) => s + z.height, 0) + divider
      }
}

const renderNode = (
  node: LayoutNode,
  origin: { x: number; y: number },
  geometry: (id: string) => SessionGeometry
): { node: SplitTreeNode } => {
  let { x, y } = origin
  const links = node.children.map((child) => {
    const size = measure(child, geometry)
    const at = { x, y }
    if (node.vertical) x += size.width + 1
    else y += size.height + 1
    if (typeof child !== "string") return { node: renderNode(child, at, geometry).node }
    const g = geometry(child)
    const summary: SessionSummary = {
      unique_identifier: child,
      frame: { origin: at, size },
      grid_size: { width: g.cols, height: g.rows },
      title: g.title
    }
    return { session: summary }
  })
  return { node: { vertical: node.vertical, links } }
}
