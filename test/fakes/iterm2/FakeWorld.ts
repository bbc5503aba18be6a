/**
 * FakeWorld — the fake iTerm2's state and the tests' scripting API: windows, tabs, split panes and
 * buried sessions, each a real bash (FakeShell); focus; notifications; the SendText ledger; API
 * transactions. `world.handler` answers iTerm2 API requests from this world (FakeHandlers).
 */

import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FakeAlerts } from "./FakeAlerts.js"
import { FakeHandlers } from "./FakeHandlers.js"
import { FakeLayout } from "./FakeLayout.js"
import type { PromptEvent } from "./FakePrompts.js"
import type { FakeRequestHandler } from "./FakeProtocol.js"
import { FakeShell } from "./FakeShell.js"
import { FakeSubscriptions } from "./FakeSubscriptions.js"
import { FakeTransactions } from "./FakeTransactions.js"
import { Ledger } from "./Ledger.js"

export interface FakeWorldOptions {
  readonly cols?: number
  readonly rows?: number
  readonly scrollback?: number
  /** Bound of every internal wait (session start, runAsUser, waitFor). Default 10 s. */
  readonly timeoutMs?: number
}

export interface SessionOptions {
  /** Source the OSC 133 shell integration (default true). */
  readonly integration?: boolean
  readonly title?: string
  readonly profileName?: string
  readonly cols?: number
  readonly rows?: number
  /** Lines of history kept above the screen (default: the world's); older lines count as overflow. */
  readonly scrollback?: number
  readonly cwd?: string
  readonly env?: Readonly<Record<string, string>>
}

/** Titles set by the user (iTerm2's title overrides); otherwise derived from the active session. */
export interface TitleOverrides {
  readonly windowTitle?: string
  readonly tabTitle?: string
}

export interface CreatedSession {
  readonly windowId: string | null
  readonly tabId: string | null
  readonly sessionId: string
}

export interface FakeSession {
  readonly id: string
  readonly shell: FakeShell
  readonly profileName: string
  title: string | null
  /** `user.*` variables, name → JSON value. */
  readonly userVars: Map<string, string>
  terminateTwice: boolean
  /** The shell exited and the session was torn down: every request now gets SESSION_NOT_FOUND. */
  gone: boolean
}

export class FakeWorld {
  readonly ledger = new Ledger()
  /** iTerm2's `iterm2.alert`: the alerts shown, and a button to press (FakeAlerts.ts). */
  readonly alerts = new FakeAlerts()
  readonly layout = new FakeLayout()
  readonly subscriptions = new FakeSubscriptions()
  readonly handler: FakeRequestHandler
  readonly home: string
  readonly timeoutMs: number
  private readonly sessions = new Map<string, FakeSession>()
  private readonly defaults: { cols: number; rows: number; scrollback: number }
  private disposed = false

  /** Request queueing and held output while a connection has a transaction open. */
  readonly transactions = new FakeTransactions(
    async () => {
      await Promise.all(this.liveSessions().map((s) => s.shell.hold()))
    },
    () => {
      for (const s of this.sessions.values()) s.shell.release()
    }
  )

  constructor(options: FakeWorldOptions = {}) {
    this.defaults = {
      cols: options.cols ?? 100,
      rows: options.rows ?? 30,
      scrollback: options.scrollback ?? 1000
    }
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.home = mkdtempSync(join(tmpdir(), "tp-fake-iterm2-"))
    this.handler = new FakeHandlers(this)
  }

  // ------------------------------------------------------------------ scripting API

  /** A new window with one tab holding one new session (which becomes the focused one). */
  async createWindow(options: SessionOptions & TitleOverrides = {}): Promise<CreatedSession> {
    const session = this.spawn(options)
    const window = this.layout.addWindow(session.id)
    window.titleOverride = options.windowTitle ?? null
    window.tabs[0]!.titleOverride = options.tabTitle ?? null
    return this.announce(session, { windowId: window.id, tabId: window.tabs[0]!.id, sessionId: session.id })
  }

  async createTab(windowId: string, options: SessionOptions & Omit<TitleOverrides, "windowTitle"> = {}) {
    const window = this.layout.window(windowId)
    if (window === undefined) throw new Error(`FakeWorld: no window ${windowId}`)
    const session = this.spawn(options)
    const tab = this.layout.addTab(window, session.id)
    tab.titleOverride = options.tabTitle ?? null
    return this.announce(session, { windowId, tabId: tab.id, sessionId: session.id })
  }

  /** Splits the pane of `sessionId`; `vertical` (default true) puts the new pane beside it. */
  async splitPane(
    sessionId: string,
    options: SessionOptions & { readonly vertical?: boolean; readonly before?: boolean } = {}
  ): Promise<CreatedSession> {
    if (this.layout.locate(sessionId) === undefined)
      throw new Error(`FakeWorld: ${sessionId} is not in a tab`)
    const session = this.spawn(options)
    const tab = this.layout.split(sessionId, session.id, options.vertical ?? true, options.before ?? false)
    return this.announce(session, { windowId: tab.windowId, tabId: tab.id, sessionId: session.id })
  }

  /** A session that runs but is in no tab (iTerm2's "buried" sessions). */
  async createBuriedSession(options: SessionOptions = {}): Promise<CreatedSession> {
    const session = this.spawn(options)
    this.layout.bury(session.id)
    return this.announce(session, { windowId: null, tabId: null, sessionId: session.id })
  }

  /** The USER typing: goes straight to the PTY, never into the ledger. */
  type(sessionId: string, text: string): void {
    this.require(sessionId).shell.input(text)
  }

  /** The user types `command` and Enter, then this waits (bounded) until the shell is back at a prompt. */
  async runAsUser(sessionId: string, command: string): Promise<void> {
    const { shell } = this.require(sessionId)
    const before = shell.prompts.last()?.id
    const y = shell.screen.cursor().y
    shell.input(`${command}\r`)
    await shell.waitUntil(
      () =>
        shell.atPrompt() &&
        (shell.integration ? shell.prompts.last()?.id !== before : shell.screen.cursor().y > y),
      this.timeoutMs,
      `the prompt after ${JSON.stringify(command)}`
    )
  }

  /** The user types `command` and Enter, then this waits (bounded) until the shell has started it (its C mark). */
  async startAsUser(sessionId: string, command: string): Promise<void> {
    const { shell } = this.require(sessionId)
    const prompt = shell.prompts.last()
    shell.input(`${command}\r`)
    await shell.waitUntil(
      () => prompt !== undefined && prompt.outputStart !== null,
      this.timeoutMs,
      `${JSON.stringify(command)} to start`
    )
  }

  /** Waits (bounded) until the session is at a prompt, or until `predicate(shell)` holds. */
  waitFor(sessionId: string, what: "prompt" | ((shell: FakeShell) => boolean), timeoutMs = this.timeoutMs) {
    const { shell } = this.require(sessionId)
    if (what === "prompt") return shell.waitUntil(() => shell.atPrompt(), timeoutMs, "a prompt")
    return shell.waitUntil(() => what(shell), timeoutMs, "a condition")
  }

  /** Kills the shell; subscribers get TerminateSession (twice if asked, as iTerm2 sometimes does). */
  async closeSession(sessionId: string, options: { readonly twice?: boolean } = {}): Promise<void> {
    const session = this.require(sessionId)
    session.terminateTwice = options.twice ?? false
    await session.shell.kill()
    if (!session.gone) this.ended(session)
  }

  /** Focuses a session (window, tab and pane), posting FocusChanged notifications. */
  focus(sessionId: string): void {
    this.require(sessionId)
    for (const event of this.layout.focus(sessionId)) {
      this.subscriptions.publish("NOTIFY_ON_FOCUS_CHANGE", { focus_changed_notification: event })
    }
  }

  /**
   * Sets the session's user variable `user.<name>` as the user would (iTerm2's
   * `OSC 1337;SetUserVar`); `value` is stored JSON-encoded, as iTerm2 reports variables.
   */
  setUserVar(sessionId: string, name: string, value: string): void {
    this.require(sessionId).userVars.set(`user.${name}`, JSON.stringify(value))
  }

  /** iTerm2 becoming active / inactive as an app. */
  setAppActive(active: boolean): void {
    if (this.layout.appActive === active) return
    this.layout.appActive = active
    this.subscriptions.publish("NOTIFY_ON_FOCUS_CHANGE", {
      focus_changed_notification: { application_active: active }
    })
  }

  screenText(sessionId: string): string {
    return this.require(sessionId).shell.screen.screenText()
  }

  /** The session's shell, for inspection (screen, prompts, path...). */
  shell(sessionId: string): FakeShell {
    return this.require(sessionId).shell
  }

  lastPromptId(sessionId: string): string | undefined {
    return this.require(sessionId).shell.prompts.last()?.id
  }

  /** Kills every shell (bounded) and removes the temporary HOME. */
  async dispose(): Promise<void> {
    this.disposed = true
    this.transactions.end()
    const all = [...this.sessions.values()]
    await Promise.all(all.map((s) => s.shell.kill()))
    for (const s of all) s.shell.dispose()
    rmSync(this.home, { recursive: true, force: true })
  }

  // ------------------------------------------------------------------ used by the handlers

  /** A live session by GUID or "active"; undefined for unknown, exited or "all". */
  lookup(id: string | undefined): FakeSession | undefined {
    const resolved = id === "active" ? this.layout.activeSessionId() : id
    const session = resolved === undefined ? undefined : this.sessions.get(resolved)
    return session === undefined || session.gone || session.shell.exited ? undefined : session
  }

  liveSessions(): Array<FakeSession> {
    return [...this.sessions.values()].filter((s) => !s.gone && !s.shell.exited)
  }

  /** The session's `name` as the tab bar shows it. */
  sessionName(session: FakeSession): string {
    return session.title ?? `${session.profileName} (${session.shell.jobName ?? "bash"})`
  }

  listSessions() {
    return this.layout.listSessions((id) => {
      const s = this.sessions.get(id)!
      return { cols: s.shell.screen.cols, rows: s.shell.screen.rows, title: this.sessionName(s) }
    })
  }

  // ------------------------------------------------------------------ internals

  private require(sessionId: string): FakeSession {
    const session = this.sessions.get(sessionId)
    if (session === undefined || session.gone) throw new Error(`FakeWorld: no live session ${sessionId}`)
    return session
  }

  private spawn(options: SessionOptions): FakeSession {
    if (this.disposed) throw new Error("FakeWorld: disposed")
    const shell = new FakeShell({
      integration: options.integration ?? true,
      cols: options.cols ?? this.defaults.cols,
      rows: options.rows ?? this.defaults.rows,
      scrollback: options.scrollback ?? this.defaults.scrollback,
      cwd: options.cwd ?? this.home,
      home: this.home,
      ...(options.env === undefined ? {} : { env: options.env })
    })
    const session: FakeSession = {
      id: randomUUID().toUpperCase(),
      shell,
      profileName: options.profileName ?? "Default",
      title: options.title ?? null,
      userVars: new Map(),
      terminateTwice: false,
      gone: false
    }
    this.sessions.set(session.id, session)
    shell.addListener({
      onPrompt: (event) => this.promptEvent(session, event),
      onOutput: () => {
        const notification = { screen_update_notification: { session: session.id } }
        this.subscriptions.publish("NOTIFY_ON_SCREEN_UPDATE", notification, session.id)
      },
      onExit: () => {
        if (!session.gone) this.ended(session)
      }
    })
    return session
  }

  /** Posts NewSession and LayoutChange, then waits (bounded) for the shell's first prompt. */
  private async announce(session: FakeSession, created: CreatedSession): Promise<CreatedSession> {
    this.subscriptions.publish("NOTIFY_ON_NEW_SESSION", {
      new_session_notification: { session_id: session.id }
    })
    this.publishLayout()
    await session.shell.waitUntil(() => session.shell.atPrompt(), this.timeoutMs, "the first prompt")
    return created
  }

  private publishLayout(): void {
    if (!this.subscriptions.has("NOTIFY_ON_LAYOUT_CHANGE")) return
    const notification = { layout_changed_notification: { list_sessions_response: this.listSessions() } }
    this.subscriptions.publish("NOTIFY_ON_LAYOUT_CHANGE", notification)
  }

  private promptEvent(session: FakeSession, event: PromptEvent): void {
    const base = { session: session.id, unique_prompt_id: event.mark.id }
    switch (event._tag) {
      case "Prompt": {
        const prompt = session.shell.prompts.response(event.mark, session.shell.path)
        const notification = { prompt_notification: { ...base, prompt: { placeholder: "", prompt } } }
        this.subscriptions.publish("NOTIFY_ON_PROMPT", notification, session.id, "PROMPT")
        return
      }
      case "CommandStart": {
        const notification = { prompt_notification: { ...base, command_start: { command: event.command } } }
        this.subscriptions.publish("NOTIFY_ON_PROMPT", notification, session.id, "COMMAND_START")
        return
      }
      case "CommandEnd": {
        const notification = { prompt_notification: { ...base, command_end: { status: event.status } } }
        this.subscriptions.publish("NOTIFY_ON_PROMPT", notification, session.id, "COMMAND_END")
        return
      }
    }
  }

  /** The shell ended: TerminateSession (the "broken pipe" post), teardown, layout change. */
  private ended(session: FakeSession): void {
    session.gone = true
    if (this.disposed) return
    const terminate = { terminate_session_notification: { session_id: session.id } }
    this.subscriptions.publish("NOTIFY_ON_TERMINATE_SESSION", terminate)
    this.layout.remove(session.id)
    this.publishLayout()
    if (session.terminateTwice) this.subscriptions.publish("NOTIFY_ON_TERMINATE_SESSION", terminate)
  }
}
