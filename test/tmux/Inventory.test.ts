/**
 * The tmux inventory against real servers: every pane of every session of every configured
 * server, with the documented fields and ids; an absent socket contributes nothing; a person's
 * client decides is_current; control clients never resize a window, never move focus, and are
 * gone once the backend's scope closes.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { TmuxBackend } from "../../src/layers/tmux/TmuxBackend.js"
import type { SessionInfo } from "../../src/services/Terminal.js"
import { run, TmuxWorld, waitFor } from "../support/tmux/TmuxWorld.js"

describe("tmux inventory", () => {
  const one = new TmuxWorld()
  const two = new TmuxWorld()
  let backend: TmuxBackend & { scope: Scope.CloseableScope }
  const panes: Record<string, string> = {}

  beforeAll(async () => {
    panes.a = one.newSession("alpha")
    panes.b = one.split(panes.a)
    panes.c = one.newWindow("alpha")
    one.tmux("rename-window", "-t", panes.c, "second | window")
    panes.d = one.newSession("beta gamma")
    panes.e = two.newSession("other")
    for (const [name, pane] of Object.entries(panes)) await (name === "e" ? two : one).waitShell(pane)
    backend = await one.backend({ sockets: [one.socket, two.socket, `${one.dir}/absent.sock`] })
  })
  afterAll(async () => {
    await one.close()
    await two.close()
  })

  const identity = (world: TmuxWorld) => world.tmux("display", "-p", "#{pid}.#{start_time}").trim()

  it("lists every pane of every session and server once, with the documented fields", async () => {
    const all = await run(backend.terminal.listSessions)
    const byId = new Map(all.map((s) => [s.session_id, s]))
    expect(all).toHaveLength(5)
    const expectPane = (world: TmuxWorld, pane: string): SessionInfo => {
      const id = `tmux:${world.socket}:${identity(world)}:${pane}`
      const info = byId.get(id)
      expect(info, id).toBeDefined()
      const [session, window, index, sessionName, windowName, tty, title] = world
        .tmux(
          "display",
          "-p",
          "-t",
          pane,
          "#{session_id}\t#{window_id}\t#{window_index}\t#{session_name}\t#{window_name}\t#{pane_tty}\t#{pane_title}"
        )
        .trimEnd()
        .split("\t")
      expect(info).toMatchObject({
        backend: "tmux",
        window_id: session,
        tab_id: window,
        window_number: Number(index),
        window_title: sessionName,
        tab_title: windowName,
        tty,
        session_title: title,
        job_name: "bash",
        profile_name: null,
        buried: false,
        is_current: false,
        username: null
      })
      return info!
    }
    expectPane(one, panes.a!)
    expectPane(one, panes.b!)
    expect(expectPane(one, panes.c!).tab_title).toBe("second | window")
    expect(expectPane(one, panes.d!).window_title).toBe("beta gamma")
    expectPane(two, panes.e!)
    // Drawn before anything watched, idle, nothing typed: proved from the snippet's prompt record
    // and the screen (EarlierPrompt.ts), so ready with no keypress.
    for (const s of all) expect(s.execution_readiness).toBe("ready")
    expect(await run(Effect.flip(backend.terminal.currentSession))).toMatchObject({
      code: "no_current_session"
    })
  })

  it("keeps the session a person's plain `tmux attach` picks (attaching counts as activity)", async () => {
    await run(backend.terminal.listSessions)
    const human = await one.human(null)
    const picked = one.tmux("list-clients", "-F", "#{client_control_mode} #{session_name}").split("\n")
    expect(picked).toContain("0 beta gamma")
    human.kill()
    await waitFor("the person's client to go", () =>
      one.tmux("list-clients", "-F", "#{client_control_mode}").includes("0") ? undefined : true
    )
  })

  it("tracks a pane's prompt once Enter is pressed, and getSession agrees with the listing", async () => {
    const id = await one.readyPane(backend, panes.d!)
    const listed = (await run(backend.terminal.listSessions)).find((s) => s.session_id === id)
    expect(await run(backend.terminal.getSession(id))).toEqual(listed)
    expect(listed?.execution_readiness).toBe("ready")
    expect(listed?.cwd).toBe(process.cwd())
  })

  it("never resizes a window or moves focus, with a person's client attached; is_current follows that client", async () => {
    const human = await one.human("alpha", 132, 43)
    const layout = () =>
      one.tmux(
        "list-panes",
        "-a",
        "-F",
        "#{pane_id} #{window_width}x#{window_height} #{window_active} #{pane_active}"
      )
    await waitFor("the window to take the person's size", () =>
      layout().includes("132x42") ? true : undefined
    )
    const before = layout()
    const all = await run(backend.terminal.listSessions)
    const activePane = one.tmux("display", "-p", "-t", "alpha", "#{pane_id}").trim()
    expect(all.filter((s) => s.is_current).map((s) => s.session_id)).toEqual([
      `tmux:${one.socket}:${identity(one)}:${activePane}`
    ])
    expect((await run(backend.terminal.currentSession)).session_id.endsWith(`:${activePane}`)).toBe(true)
    const id = await one.readyPane(backend, panes.b!)
    await run(backend.terminal.read(id, { maxLines: 50, maxChars: 5000 }))
    expect(layout()).toBe(before)
    human.kill()
  })

  it("attaches to a session created later by itself, and reports each socket's status", async () => {
    const controls = () => one.tmux("list-clients", "-F", "#{client_control_mode} #{session_name}")
    expect(controls()).not.toContain("1 late")
    one.newSession("late")
    // %sessions-changed makes the backend attach a control client to the new session.
    await waitFor("a control client on the new session", () =>
      controls().includes("1 late") ? true : undefined
    )
    const status = await waitFor("the backend to count it", async () => {
      const now = await run(backend.status)
      return now.servers[0]?.controlClients === 3 ? now : undefined
    })
    const [pid, start] = identity(one).split(".")
    expect(status.servers).toEqual([
      {
        socket: one.socket,
        running: true,
        pid: Number(pid),
        startTime: Number(start),
        version: one.tmux("display", "-p", "#{version}").trim(),
        controlClients: 3,
        error: null
      },
      expect.objectContaining({ socket: two.socket, running: true, controlClients: 1 }),
      expect.objectContaining({ socket: `${one.dir}/absent.sock`, running: false, pid: null })
    ])
    one.tmux("kill-session", "-t", "late")
    await waitFor("its client to go", () => (controls().includes("1 late") ? undefined : true))
  })

  it("leaves no control client behind when its scope closes", async () => {
    const controls = (world: TmuxWorld) =>
      world
        .tmux("list-clients", "-F", "#{client_control_mode}")
        .split("\n")
        .filter((l) => l === "1").length
    // One control client per session: alpha and beta gamma on the first server, other on the second.
    expect(controls(one)).toBe(2)
    expect(controls(two)).toBe(1)
    await Effect.runPromise(Scope.close(backend.scope, Exit.void))
    await waitFor("control clients to go", () => (controls(one) + controls(two) === 0 ? true : undefined))
  })
})
