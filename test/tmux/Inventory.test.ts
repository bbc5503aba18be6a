/**
 * The tmux inventory against real servers: every pane of every session of every configured
 * server, with the documented fields and ids; an absent socket contributes nothing; a person's
 * client decides is_current; control clients never resize a window, never move focus, and are
 * gone once the backend's scope closes.
 */
import { userInfo } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { TmuxBackend } from "../../src/layers/backends/tmux/Backend.js"
import type { SessionInfo } from "../../src/services/Terminal.js"
import { RecordedBackend, run } from "../support/tmux/RecordedBackend.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import { TmuxWorld, type WorldPane } from "../support/tmux/TmuxWorld.js"

describe("tmux inventory", () => {
  const rig = new RecordedBackend()
  const one = rig.world
  const two = TmuxWorld.create()
  const absent = join(one.root, "absent.sock")
  let backend: TmuxBackend
  let scope: Scope.Closeable
  const panes: Record<string, WorldPane> = {}

  beforeAll(async () => {
    // Each pane's shell is up (its prompt drawn) once the world returns it. Windows are named, so
    // tmux's automatic-rename never changes a name mid-test.
    panes.a = await one.newSession("alpha", { name: "main" })
    panes.b = await one.split(panes.a)
    panes.c = await one.newWindow("alpha", { name: "w1" })
    await one.tmux("rename-window", "-t", panes.c.paneId, "second | window")
    panes.d = await one.newSession("beta gamma", { name: "main" })
    panes.e = await two.newSession("other", { name: "main" })
    ;({ backend, scope } = await rig.scopedBackend({ sockets: [one.socket, two.socket, absent] }))
  })
  afterAll(async () => {
    await rig.close()
    await two.close()
  })

  const identity = async (world: TmuxWorld) =>
    (await world.tmux("display", "-p", "#{pid}.#{start_time}")).trim()

  it("lists every pane of every session and server once, with the documented fields", async () => {
    const all = await run(backend.terminal.listSessions)
    const byId = new Map(all.map((s) => [s.session_id, s]))
    expect(all).toHaveLength(5)
    const expectPane = async (world: TmuxWorld, pane: WorldPane): Promise<SessionInfo> => {
      const id = `tmux:${world.socket}:${await identity(world)}:${pane.paneId}`
      const info = byId.get(id)
      expect(info, id).toBeDefined()
      const [session, window, index, sessionName, windowName, tty, title, command] = (
        await world.tmux(
          "display",
          "-p",
          "-t",
          pane.paneId,
          "#{session_id}\t#{window_id}\t#{window_index}\t#{session_name}\t#{window_name}\t#{pane_tty}\t#{pane_title}\t#{pane_current_command}"
        )
      )
        .trimEnd()
        .split("\t")
      // The pane's own process is the world's recorder (`script`), with the shell under it.
      expect(command).toBe("script")
      expect(info).toMatchObject({
        backend: "tmux",
        window_id: session,
        tab_id: window,
        window_number: Number(index),
        window_title: sessionName,
        tab_title: windowName,
        tty,
        session_title: title,
        job_name: command,
        profile_name: null,
        buried: false,
        is_current: false,
        // No RemoteHost seen yet (the prompts were drawn before watching): the local shell's owner.
        username: userInfo().username
      })
      return info!
    }
    await expectPane(one, panes.a!)
    await expectPane(one, panes.b!)
    expect((await expectPane(one, panes.c!)).tab_title).toBe("second | window")
    expect((await expectPane(one, panes.d!)).window_title).toBe("beta gamma")
    await expectPane(two, panes.e!)
    // Drawn before anything watched, idle, nothing typed: proved from the snippet's prompt record
    // and the screen (EarlierPrompt.ts), so ready with no keypress.
    for (const s of all) expect(s.execution_readiness).toBe("ready")
    expect(await run(Effect.flip(backend.terminal.currentSession))).toMatchObject({
      code: "no_current_session"
    })
  })

  it("keeps the session a person's plain `tmux attach` picks (attaching counts as activity)", async () => {
    await run(backend.terminal.listSessions)
    const human = await rig.person(null)
    const picked = (await one.tmux("list-clients", "-F", "#{client_control_mode} #{session_name}")).split(
      "\n"
    )
    expect(picked).toContain("0 beta gamma")
    human.kill()
    await waitUntil(
      "the person's client to go",
      async () => !(await one.tmux("list-clients", "-F", "#{client_control_mode}")).includes("0")
    )
  })

  it("tracks a pane's prompt once Enter is pressed, and getSession agrees with the listing", async () => {
    const { id } = await rig.ready(panes.d!, backend)
    const listed = (await run(backend.terminal.listSessions)).find((s) => s.session_id === id)
    expect(await run(backend.terminal.getSession(id))).toEqual(listed)
    expect(listed?.execution_readiness).toBe("ready")
    expect(listed?.cwd).toBe(process.cwd())
  })

  it("sessionLabels gives the listing's window, tab and session titles; an unknown pane is not found", async () => {
    const listed = await run(backend.terminal.listSessions)
    for (const pane of [panes.c!, panes.d!]) {
      const id = `tmux:${one.socket}:${await identity(one)}:${pane.paneId}`
      const info = listed.find((s) => s.session_id === id)
      const expected = [info?.window_title, info?.tab_title, info?.session_title].filter((t) => t != null)
      expect(expected.length, id).toBeGreaterThan(1)
      expect(await run(backend.terminal.sessionLabels(id))).toEqual(expected)
    }
    const gone = `tmux:${one.socket}:${await identity(one)}:%9999`
    const code = await run(Effect.flip(backend.terminal.sessionLabels(gone)).pipe(Effect.map((e) => e.code)))
    expect(code).toBe("session_not_found")
  })

  it("never resizes a window or moves focus, with a person's client attached; is_current follows that client", async () => {
    const human = await rig.person("alpha", 132, 43)
    const layout = () =>
      one.tmux(
        "list-panes",
        "-a",
        "-F",
        "#{pane_id} #{window_width}x#{window_height} #{window_active} #{pane_active}"
      )
    await waitUntil("the window to take the person's size", async () => (await layout()).includes("132x42"))
    const before = await layout()
    const all = await run(backend.terminal.listSessions)
    const activePane = (await one.tmux("display", "-p", "-t", "alpha", "#{pane_id}")).trim()
    expect(all.filter((s) => s.is_current).map((s) => s.session_id)).toEqual([
      `tmux:${one.socket}:${await identity(one)}:${activePane}`
    ])
    expect((await run(backend.terminal.currentSession)).session_id.endsWith(`:${activePane}`)).toBe(true)
    const { id } = await rig.ready(panes.b!, backend)
    await run(backend.terminal.read(id, { maxLines: 50, maxChars: 5000 }))
    expect(await layout()).toBe(before)
    human.kill()
  })

  it("attaches to a session created later by itself, and reports each socket's status", async () => {
    const controls = () => one.tmux("list-clients", "-F", "#{client_control_mode} #{session_name}")
    expect(await controls()).not.toContain("1 late")
    await one.newSession("late")
    // %sessions-changed makes the backend attach a control client to the new session.
    await waitUntil("a control client on the new session", async () => (await controls()).includes("1 late"))
    let status = await run(backend.status)
    await waitUntil("the backend to count it", async () => {
      status = await run(backend.status)
      return status.servers[0]?.controlClients === 3
    })
    const [pid, start] = (await identity(one)).split(".")
    expect(status.servers).toEqual([
      {
        socket: one.socket,
        host: null,
        running: true,
        pid: Number(pid),
        startTime: Number(start),
        version: (await one.tmux("display", "-p", "#{version}")).trim(),
        controlClients: 3,
        error: null
      },
      expect.objectContaining({ socket: two.socket, running: true, controlClients: 1 }),
      expect.objectContaining({ socket: absent, running: false, pid: null })
    ])
    await one.tmux("kill-session", "-t", "late")
    await waitUntil("its client to go", async () => !(await controls()).includes("1 late"))
  })

  it("leaves no control client behind when its scope closes", async () => {
    const controls = async (world: TmuxWorld) =>
      (await world.tmux("list-clients", "-F", "#{client_control_mode}")).split("\n").filter((l) => l === "1")
        .length
    // One control client per session: alpha and beta gamma on the first server, other on the second.
    expect(await controls(one)).toBe(2)
    expect(await controls(two)).toBe(1)
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await waitUntil("control clients to go", async () => (await controls(one)) + (await controls(two)) === 0)
  })
})
