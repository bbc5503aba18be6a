/**
 * The fake iTerm2 world's layout, SendText ledger, session teardown, focus, variables and
 * transactions, answered through its FakeRequestHandler with real bash sessions behind it.
 */
import { hostname, userInfo } from "node:os"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { ClientRequest, SplitTreeNode } from "../../src/generated/iterm2/Iterm2Messages.js"
import { FakeWorld } from "../fakes/iterm2/FakeWorld.js"
import { CollectingConnection, call } from "./harness.js"

const ids = (node: SplitTreeNode): Array<string> =>
  (node.links ?? []).flatMap((l) => (l.session ? [l.session.unique_identifier!] : l.node ? ids(l.node) : []))

describe("fake iTerm2 world", () => {
  let world: FakeWorld
  const conn = new CollectingConnection()

  beforeEach(() => {
    world = new FakeWorld({ cols: 60, rows: 12 })
  })
  afterEach(async () => {
    await world.dispose()
  })

  it("lists windows, tabs, split trees and buried sessions as iTerm2 does", async () => {
    const a = await world.createWindow({ title: "alpha" })
    const b = await world.splitPane(a.sessionId, { vertical: true, integration: false })
    const c = await world.splitPane(b.sessionId, { vertical: false })
    const t2 = await world.createTab(a.windowId!)
    const buried = await world.createBuriedSession()
    const r = (await call(world, { list_sessions_request: {} }, conn))!.list_sessions_response!
    expect(r.windows).toHaveLength(1)
    const window = r.windows![0]!
    expect(window.window_id).toMatch(/^pty-[0-9A-F-]{36}$/)
    expect(window.tabs!.map((t) => t.tab_id)).toEqual([a.tabId, t2.tabId])
    expect(window.tabs!.every((t) => t.tmux_window_id === "-1")).toBe(true)
    const root = window.tabs![0]!.root!
    // a | (b over c): a vertical divider at the root, a horizontal one inside.
    expect(root.vertical).toBe(true)
    expect(root.links![0]!.session!.unique_identifier).toBe(a.sessionId)
    expect(root.links![0]!.session!.title).toBe("alpha")
    expect(root.links![0]!.session!.grid_size).toEqual({ width: 60, height: 12 })
    expect(root.links![1]!.node!.vertical).toBe(false)
    expect(ids(root)).toEqual([a.sessionId, b.sessionId, c.sessionId])
    const frameA = root.links![0]!.session!.frame!
    const frameB = root.links![1]!.node!.links![0]!.session!.frame!
    expect(frameB.origin!.x).toBeGreaterThan(frameA.origin!.x! + frameA.size!.width! - 1)
    expect(r.buried_sessions).toEqual([{ unique_identifier: buried.sessionId, title: expect.any(String) }])
    expect(new Set([a, b, c, t2, buried].map((s) => s.sessionId)).size).toBe(5)
  })

  it("records every SendText in the ledger, even for unknown sessions, but never the user's typing", async () => {
    const { sessionId } = await world.createWindow()
    world.type(sessionId, "echo typed-by-user")
    const unknown = await call(
      world,
      { send_text_request: { session: "NO-SUCH-SESSION", text: "rm -rf /\r" } },
      conn
    )
    expect(unknown?.send_text_response?.status).toBe("SESSION_NOT_FOUND")
    const ok = await call(
      world,
      { send_text_request: { session: sessionId, text: "\x15echo sent-by-api\r", suppress_broadcast: true } },
      conn
    )
    expect(ok?.send_text_response?.status).toBe("OK")
    await world.waitFor(sessionId, (shell) => shell.screen.screenText().split("\n").includes("sent-by-api"))
    expect(world.ledger.all().map((e) => [e.session, e.text, e.suppress_broadcast, e.connectionId])).toEqual([
      ["NO-SUCH-SESSION", "rm -rf /\r", undefined, conn.id],
      [sessionId, "\x15echo sent-by-api\r", true, conn.id]
    ])
    expect(world.ledger.textFor(sessionId)).not.toContain("typed-by-user")
  })

  it("posts TerminateSession (twice when asked) and then answers SESSION_NOT_FOUND", async () => {
    const a = await world.createWindow()
    const b = await world.splitPane(a.sessionId)
    const events = new CollectingConnection()
    for (const type of ["NOTIFY_ON_TERMINATE_SESSION", "NOTIFY_ON_LAYOUT_CHANGE"] as const) {
      const r = await call(
        world,
        { notification_request: { session: "all", subscribe: true, notification_type: type } },
        events
      )
      expect(r?.notification_response?.status).toBe("OK")
    }
    await world.closeSession(b.sessionId, { twice: true })
    const terminations = events.pushed.filter((n) => n.terminate_session_notification)
    expect(terminations).toEqual([
      { terminate_session_notification: { session_id: b.sessionId } },
      { terminate_session_notification: { session_id: b.sessionId } }
    ])
    const layout = events.pushed.find((n) => n.layout_changed_notification)!.layout_changed_notification!
    expect(ids(layout.list_sessions_response!.windows![0]!.tabs![0]!.root!)).toEqual([a.sessionId])
    const requests: Array<ClientRequest> = [
      { send_text_request: { session: b.sessionId, text: "x" } },
      { get_buffer_request: { session: b.sessionId, line_range: { trailing_lines: 1 } } },
      { get_prompt_request: { session: b.sessionId } },
      { variable_request: { session_id: b.sessionId, get: ["id"] } }
    ]
    const statuses = await Promise.all(requests.map((r) => call(world, r, conn)))
    expect(statuses.map((s) => Object.values(s!)[0]!.status)).toEqual(Array(4).fill("SESSION_NOT_FOUND"))
    expect(world.ledger.forSession(b.sessionId)).toHaveLength(1)

    // A shell that exits by itself ends its session the same way (once).
    const before = events.pushed.length
    await world.runAsUser(a.sessionId, "exit").catch(() => undefined)
    await events.waitFor((n) => n.terminate_session_notification?.session_id === a.sessionId, before)
    const r = (await call(world, { list_sessions_request: {} }, conn))!.list_sessions_response!
    expect(r.windows).toEqual([])
  })

  it('tracks focus, resolves "active" and answers FocusRequest in iTerm2\'s order', async () => {
    const a = await world.createWindow()
    const b = await world.createTab(a.windowId!)
    const w2 = await world.createWindow()
    const events = new CollectingConnection()
    await call(
      world,
      {
        notification_request: { session: "all", subscribe: true, notification_type: "NOTIFY_ON_FOCUS_CHANGE" }
      },
      events
    )
    const activeId = async () =>
      (await call(world, { variable_request: { session_id: "active", get: ["id"] } }, conn))!
        .variable_response!.values![0]
    expect(await activeId()).toBe(JSON.stringify(w2.sessionId))
    world.focus(a.sessionId)
    expect(events.pushed.map((n) => n.focus_changed_notification)).toEqual([
      { window: { window_status: "TERMINAL_WINDOW_RESIGNED_KEY", window_id: w2.windowId } },
      { window: { window_status: "TERMINAL_WINDOW_BECAME_KEY", window_id: a.windowId } },
      { selected_tab: a.tabId }
    ])
    expect(await activeId()).toBe(JSON.stringify(a.sessionId))
    const focus = (await call(world, { focus_request: {} }, conn))!.focus_response!.notifications
    expect(focus).toEqual([
      { application_active: true },
      { window: { window_status: "TERMINAL_WINDOW_BECAME_KEY", window_id: a.windowId } },
      { selected_tab: a.tabId },
      { session: a.sessionId },
      { session: b.sessionId },
      { selected_tab: w2.tabId },
      { session: w2.sessionId }
    ])
  })

  it("answers session variables with JSON values, references and user.* sets", async () => {
    const { sessionId } = await world.createWindow({
      profileName: "Work",
      tabTitle: "my tab",
      windowTitle: "my window"
    })
    const plain = await world.createTab(
      (await call(world, { list_sessions_request: {} }, conn))!.list_sessions_response!.windows![0]!
        .window_id!,
      {
        integration: false
      }
    )
    await world.runAsUser(sessionId, "mkdir -p sub && cd sub")
    const names = [
      "path",
      "hostname",
      "username",
      "jobName",
      "pid",
      "tty",
      "profileName",
      "id",
      "tab.title",
      "tab.window.title",
      "user.nope",
      "noSuchVariable"
    ]
    const r = (await call(world, { variable_request: { session_id: sessionId, get: names } }, conn))!
      .variable_response!
    expect(r.status).toBe("OK")
    const v = Object.fromEntries(names.map((n, i) => [n, JSON.parse(r.values![i]!)]))
    expect(v.path).toBe(`${world.home}/sub`)
    expect(v.hostname).toBe(hostname())
    expect(v.username).toBe(userInfo().username)
    expect(v.jobName).toBe("bash")
    expect(v.pid).toBe(world.shell(sessionId).pid)
    expect(v.tty).toMatch(/^\/dev\/pts\/\d+$/)
    expect(v.profileName).toBe("Work")
    expect(v.id).toBe(sessionId)
    expect(v["tab.title"]).toBe("my tab")
    expect(v["tab.window.title"]).toBe("my window")
    expect(r.values!.slice(-2)).toEqual(["null", "null"])

    // Without shell integration there is no host/user, but the local cwd is still known.
    const p = (await call(
      world,
      { variable_request: { session_id: plain.sessionId, get: ["hostname", "path"] } },
      conn
    ))!.variable_response!
    expect(p.values).toEqual(["null", JSON.stringify(world.home)])

    const set = await call(
      world,
      {
        variable_request: {
          session_id: sessionId,
          set: [{ name: "user.tag", value: '"x"' }],
          get: ["user.tag"]
        }
      },
      conn
    )
    expect(set?.variable_response).toEqual({ status: "OK", values: ['"x"'] })
    const bad = await call(
      world,
      { variable_request: { session_id: sessionId, set: [{ name: "path", value: '"/"' }] } },
      conn
    )
    expect(bad?.variable_response?.status).toBe("INVALID_NAME")
    const multi = await call(world, { variable_request: { session_id: "all", get: ["id"] } }, conn)
    expect(multi?.variable_response?.status).toBe("MULTI_GET_DISALLOWED")
    expect((await call(world, { variable_request: { get: ["id"] } }, conn))?.variable_response?.status).toBe(
      "MISSING_SCOPE"
    )
  })

  it("holds other connections and all shell output while a transaction is open", async () => {
    const { sessionId } = await world.createWindow()
    const other = new CollectingConnection()
    const begin = await call(world, { transaction_request: { begin: true } }, conn)
    expect(begin?.transaction_response?.status).toBe("OK")
    expect(
      (await call(world, { transaction_request: { begin: true } }, conn))?.transaction_response?.status
    ).toBe("ALREADY_IN_TRANSACTION")
    await call(world, { send_text_request: { session: sessionId, text: "echo after-transaction\r" } }, conn)
    let otherDone = false
    const otherReply = call(world, { list_sessions_request: {} }, other).then((r) => {
      otherDone = true
      return r
    })
    // While the transaction is open the shell's reply is not rendered and `other` is queued.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(world.screenText(sessionId).split("\n")).not.toContain("after-transaction")
    expect(otherDone).toBe(false)
    expect((await call(world, { transaction_request: {} }, conn))?.transaction_response?.status).toBe("OK")
    expect((await otherReply)?.list_sessions_response?.windows).toHaveLength(1)
    await world.waitFor(sessionId, (shell) =>
      shell.screen.screenText().split("\n").includes("after-transaction")
    )
    expect(
      (await call(world, { transaction_request: { begin: false } }, conn))?.transaction_response?.status
    ).toBe("NO_TRANSACTION")
  })

  it("answers an unknown request kind with iTerm2's upgrade error", async () => {
    const r = await call(world, { create_tab_request: {} } as unknown as ClientRequest, conn)
    expect(r).toEqual({ error: "Invalid request. Upgrade iTerm2 to a newer version." })
  })
})
