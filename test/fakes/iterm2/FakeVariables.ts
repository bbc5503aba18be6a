/**
 * FakeVariables — VariableRequest as iTerm2 answers it (§3.6): session, tab, window and app
 * scopes, reference paths (`tab.title`, `tab.window.title`, `iterm2.pid`), `user.*` sets, JSON
 * values with "null" for unset, `*` for a whole scope, and the documented status codes.
 */
import { readlinkSync } from "node:fs"
import { hostname as osHostname } from "node:os"
import type { VariableRequest, VariableResponse } from "../../../src/generated/iterm2/Iterm2Messages.js"
import { type LayoutTab, type LayoutWindow, sessionIds } from "./FakeLayout.js"
import type { FakeSession, FakeWorld } from "./FakeWorld.js"

type Json = string | number | boolean | null | { readonly [key: string]: Json }
interface Scope {
  readonly values: Readonly<Record<string, () => Json>>
  readonly refs?: Readonly<Record<string, () => Scope | null>>
}

export const answerVariables = (world: FakeWorld, request: VariableRequest): VariableResponse => {
  const get = request.get ?? []
  const set = request.set ?? []
  const target = request.session_id ?? request.tab_id ?? request.window_id
  if (target === "all") {
    // The server only allows "all" without gets; its window handler tests session_id (a known bug).
    if (get.length > 0) return { status: "MULTI_GET_DISALLOWED" }
    if (request.window_id !== undefined && request.session_id !== "all") return { status: "WINDOW_NOT_FOUND" }
    return { status: "OK", values: [] }
  }
  let scope: Scope | null
  let userVars: Map<string, string> | null = null
  if (request.session_id !== undefined) {
    const session = world.lookup(request.session_id)
    if (session === undefined) return { status: "SESSION_NOT_FOUND" }
    scope = sessionScope(world, session)
    userVars = session.userVars
  } else if (request.tab_id !== undefined) {
    const tab = world.layout.tab(request.tab_id)
    if (tab === undefined) return { status: "TAB_NOT_FOUND" }
    scope = tabScope(world, tab)
  } else if (request.window_id !== undefined) {
    const window = world.layout.window(request.window_id)
    if (window === undefined) return { status: "WINDOW_NOT_FOUND" }
    scope = windowScope(world, window)
  } else if (request.app === true) {
    scope = appScope()
  } else return { status: "MISSING_SCOPE" }

  for (const { name, value } of set) {
    if (userVars === null || name === undefined || !/^user\.[^.]+$/.test(name))
      return { status: "INVALID_NAME" }
    if (value === undefined || value === "null") userVars.delete(name)
    else userVars.set(name, value)
  }
  const values = get.map((name) => {
    if (name === "*") return JSON.stringify(dump(scope, userVars))
    if (userVars !== null && name.startsWith("user.")) return userVars.get(name) ?? "null"
    return JSON.stringify(resolve(scope, name.split(".")))
  })
  return { status: "OK", values }
}

const resolve = (scope: Scope | null, path: ReadonlyArray<string>): Json => {
  if (scope === null) return null
  const [head, ...rest] = path
  if (head === undefined) return null
  if (rest.length === 0) return Object.hasOwn(scope.values, head) ? scope.values[head]!() : null
  const ref = scope.refs?.[head]
  return ref === undefined ? null : resolve(ref(), rest)
}

const dump = (scope: Scope, userVars: Map<string, string> | null): Record<string, Json> => {
  const out: Record<string, Json> = {}
  for (const [key, read] of Object.entries(scope.values)) out[key] = read()
  if (userVars !== null) for (const [k, v] of userVars) out[k] = JSON.parse(v) as Json
  return out
}

const localCwd = (pid: number): string | null => {
  try {
    return readlinkSync(`/proc/${pid}/cwd`)
  } catch {
    return null
  }
}

const sessionScope = (world: FakeWorld, session: FakeSession): Scope => {
  const { shell } = session
  const place = () => world.layout.locate(session.id)
  const values = {
    id: () => session.id,
    name: () => world.sessionName(session),
    presentationName: () => world.sessionName(session),
    autoName: () => world.sessionName(session),
    profileName: () => session.profileName,
    // Shell integration reports these; without it iTerm2 polls the local process's cwd.
    hostname: () => shell.hostname,
    username: () => shell.username,
    path: () => (shell.integration ? shell.path : localCwd(shell.pid)),
    jobName: () => shell.jobName,
    pid: () => shell.pid,
    tty: () => shell.tty,
    columns: () => shell.screen.cols,
    rows: () => shell.screen.rows,
    showingAlternateScreen: () => shell.screen.alternateScreen,
    lastCommand: () => lastCommand(session),
    termid: () => {
      const p = place()
      if (p === undefined) return null
      const w = world.layout.windows.indexOf(p.window)
      const pane = sessionIds(p.tab.root).indexOf(session.id)
      return `w${w}t${p.window.tabs.indexOf(p.tab)}p${pane}:${session.id}`
    }
  }
  return {
    values,
    refs: {
      tab: () => {
        const p = place()
        return p === undefined ? null : tabScope(world, p.tab)
      },
      iterm2: () => appScope()
    }
  }
}

const lastCommand = (session: FakeSession): Json => {
  const marks = session.shell.prompts.list()
  for (let i = marks.length - 1; i >= 0; i--) {
    const command = marks[i]?.command
    if (command != null && marks[i]?.outputStart !== null) return command
  }
  return null
}

const tabTitle = (world: FakeWorld, tab: LayoutTab): string => {
  const active = world.lookup(tab.activeSessionId)
  return tab.titleOverride ?? (active === undefined ? "" : world.sessionName(active))
}

const tabScope = (world: FakeWorld, tab: LayoutTab): Scope => ({
  values: {
    id: () => tab.id,
    title: () => tabTitle(world, tab),
    titleOverride: () => tab.titleOverride
  },
  refs: {
    window: () => {
      const window = world.layout.window(tab.windowId)
      return window === undefined ? null : windowScope(world, window)
    },
    currentSession: () => {
      const s = world.lookup(tab.activeSessionId)
      return s === undefined ? null : sessionScope(world, s)
    }
  }
})

const windowScope = (world: FakeWorld, window: LayoutWindow): Scope => ({
  values: {
    id: () => window.id,
    number: () => window.number,
    titleOverride: () => window.titleOverride,
    title: () => {
      const tab = window.tabs.find((t) => t.id === window.selectedTabId)
      return window.titleOverride ?? (tab === undefined ? "" : tabTitle(world, tab))
    }
  },
  refs: {
    currentTab: () => {
      const tab = window.tabs.find((t) => t.id === window.selectedTabId)
      return tab === undefined ? null : tabScope(world, tab)
    }
  }
})

const appScope = (): Scope => ({
  values: {
    pid: () => process.pid,
    localhostName: () => osHostname(),
    effectiveTheme: () => "dark"
  }
})
