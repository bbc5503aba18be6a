/**
 * The fake iTerm2 world's prompt model against real bash sessions: OSC 133 marks become
 * PROMPT / COMMAND_START / COMMAND_END notifications and GetPrompt ranges in absolute coordinates.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FakeWorld } from "../fakes/iterm2/FakeWorld.js"
import { CollectingConnection, call, getLines, getPrompt, joinLines, promptEvents } from "./harness.js"

describe("fake iTerm2 prompts (real bash with shell integration)", () => {
  let world: FakeWorld
  let sessionId: string
  let plainId: string

  beforeAll(async () => {
    world = new FakeWorld({ cols: 80, rows: 24 })
    sessionId = (await world.createWindow({ integration: true })).sessionId
    plainId = (await world.createWindow({ integration: false })).sessionId
  })
  afterAll(async () => {
    await world.dispose()
  })

  it("reports COMMAND_START with the command and COMMAND_END with the real exit status", async () => {
    const conn = new CollectingConnection()
    const subscribe = await call(
      world,
      {
        notification_request: {
          session: sessionId,
          subscribe: true,
          notification_type: "NOTIFY_ON_PROMPT",
          prompt_monitor_request: { modes: ["PROMPT", "COMMAND_START", "COMMAND_END"] }
        }
      },
      conn
    )
    expect(subscribe?.notification_response?.status).toBe("OK")
    const editing = await getPrompt(world, conn, sessionId)
    expect(editing.prompt_state).toBe("EDITING")
    const promptId = editing.unique_prompt_id!

    const command = "echo one; echo two; (exit 7)"
    const sent = await call(world, { send_text_request: { session: sessionId, text: `${command}\r` } }, conn)
    expect(sent?.send_text_response?.status).toBe("OK")

    const end = await conn.waitFor((n) => n.prompt_notification?.command_end !== undefined)
    expect(end.prompt_notification).toEqual({
      session: sessionId,
      unique_prompt_id: promptId,
      command_end: { status: 7 }
    })
    const start = conn.pushed.find((n) => n.prompt_notification?.command_start !== undefined)
    expect(start?.prompt_notification).toEqual({
      session: sessionId,
      unique_prompt_id: promptId,
      command_start: { command }
    })
    const next = await conn.waitFor((n) => n.prompt_notification?.prompt !== undefined)
    expect(next.prompt_notification?.unique_prompt_id).not.toBe(promptId)
    expect(next.prompt_notification?.prompt?.placeholder).toBe("")
    expect(next.prompt_notification?.prompt?.prompt?.prompt_state).toBe("EDITING")
    expect(promptEvents(conn, sessionId)).toEqual(["COMMAND_START", "COMMAND_END", "PROMPT"])

    // The finished prompt, fetched by id: its output range covers exactly the command's output.
    const finished = await getPrompt(world, conn, sessionId, promptId)
    expect(finished.prompt_state).toBe("FINISHED")
    expect(finished.exit_status).toBe(7)
    expect(finished.command).toBe(command)
    const output = finished.output_range!
    expect(output.start).toEqual({ x: 0, y: finished.command_range!.start!.y! + 1 })
    const cursor = (
      await call(
        world,
        { get_buffer_request: { session: sessionId, line_range: { trailing_lines: 1 } } },
        conn
      )
    )?.get_buffer_response?.cursor
    expect(output.end).toEqual(cursor)
    const lines = await getLines(world, conn, sessionId, output.start!.y!, output.end!.y! - output.start!.y!)
    expect(joinLines(lines)).toBe("one\ntwo\n")
    // The prompt text lies in prompt_range, the command in command_range.
    const promptLine = await getLines(world, conn, sessionId, finished.prompt_range!.start!.y!, 1)
    const text = promptLine.contents![0]!.text!
    expect(text.slice(finished.prompt_range!.start!.x!, finished.prompt_range!.end!.x!)).toMatch(/^tp:.*\$ $/)
    expect(text.slice(finished.command_range!.start!.x!, finished.command_range!.end!.x!)).toBe(command)
    conn.close()
  })

  it("shows typed-but-not-entered text in command_range, and an empty line as start == end", async () => {
    const conn = new CollectingConnection()
    const empty = await getPrompt(world, conn, sessionId)
    expect(empty.prompt_state).toBe("EDITING")
    expect(empty.command_range!.start).toEqual(empty.command_range!.end)
    expect(empty.output_range).toBeUndefined()

    world.type(sessionId, "echo not yet")
    await world.waitFor(sessionId, (shell) => shell.screen.screenText().includes("echo not yet"))
    const typed = await getPrompt(world, conn, sessionId)
    expect(typed.unique_prompt_id).toBe(empty.unique_prompt_id)
    expect(typed.command).toBe("echo not yet")
    expect(typed.command_range!.end!.x! - typed.command_range!.start!.x!).toBe("echo not yet".length)
    world.type(sessionId, "\x15") // C-u: the user clears the line again
    await world.waitFor(sessionId, (shell) => !shell.screen.screenText().includes("echo not yet"))
    const cleared = await getPrompt(world, conn, sessionId)
    expect(cleared.command_range!.start).toEqual(cleared.command_range!.end)
  })

  it("is RUNNING while a command waits for input, and an empty Enter posts no COMMAND_END", async () => {
    const conn = new CollectingConnection()
    await call(
      world,
      {
        notification_request: {
          session: "all",
          subscribe: true,
          notification_type: "NOTIFY_ON_PROMPT",
          prompt_monitor_request: { modes: ["PROMPT", "COMMAND_START", "COMMAND_END"] }
        }
      },
      conn
    )
    const id = world.lastPromptId(sessionId)
    world.type(sessionId, "read line\r")
    await conn.waitFor((n) => n.prompt_notification?.command_start?.command === "read line")
    const running = await getPrompt(world, conn, sessionId)
    expect(running.unique_prompt_id).toBe(id)
    expect(running.prompt_state).toBe("RUNNING")
    expect(running.exit_status).toBeUndefined()
    world.type(sessionId, "hello\r")
    await conn.waitFor((n) => n.prompt_notification?.command_end?.status === 0)
    await conn.waitFor((n) => n.prompt_notification?.prompt !== undefined)

    const before = conn.pushed.length
    await world.runAsUser(sessionId, "")
    await conn.waitFor((n) => n.prompt_notification?.prompt !== undefined, before)
    expect(promptEvents(conn, sessionId).slice(-1)).toEqual(["PROMPT"])
    expect(conn.pushed.slice(before).some((n) => n.prompt_notification?.command_end !== undefined)).toBe(
      false
    )
    conn.close()
  })

  it("keeps the first subscription's modes (ALREADY_SUBSCRIBED) until unsubscribed", async () => {
    const conn = new CollectingConnection()
    const subscribe = (
      modes: ReadonlyArray<"PROMPT" | "COMMAND_START" | "COMMAND_END"> | undefined,
      on = true
    ) =>
      call(
        world,
        {
          notification_request: {
            session: sessionId,
            subscribe: on,
            notification_type: "NOTIFY_ON_PROMPT",
            ...(modes === undefined ? {} : { prompt_monitor_request: { modes } })
          }
        },
        conn
      ).then((r) => r?.notification_response?.status)
    expect(await subscribe(undefined)).toBe("OK")
    expect(await subscribe(["COMMAND_END"])).toBe("ALREADY_SUBSCRIBED")
    await world.runAsUser(sessionId, "(exit 3)")
    await conn.waitFor((n) => n.prompt_notification?.prompt !== undefined)
    expect(promptEvents(conn, sessionId)).toEqual(["PROMPT"])

    expect(await subscribe(undefined, false)).toBe("OK")
    expect(await subscribe(undefined, false)).toBe("NOT_SUBSCRIBED")
    const malformed = await call(
      world,
      { notification_request: { session: sessionId, notification_type: "NOTIFY_ON_PROMPT" } },
      conn
    )
    expect(malformed?.notification_response?.status).toBe("REQUEST_MALFORMED")
    const unknown = await call(
      world,
      {
        notification_request: {
          session: "NO-SUCH-SESSION",
          subscribe: true,
          notification_type: "NOTIFY_ON_PROMPT"
        }
      },
      conn
    )
    expect(unknown?.notification_response?.status).toBe("SESSION_NOT_FOUND")
  })

  it("lists prompt ids oldest first and answers PROMPT_UNAVAILABLE without shell integration", async () => {
    const conn = new CollectingConnection()
    const listed = await call(world, { list_prompts_request: { session: sessionId } }, conn)
    const ids = listed?.list_prompts_response?.unique_prompt_id ?? []
    expect(ids.length).toBeGreaterThanOrEqual(4)
    expect(ids[ids.length - 1]).toBe(world.lastPromptId(sessionId))
    expect(new Set(ids).size).toBe(ids.length)
    const tail = await call(
      world,
      { list_prompts_request: { session: sessionId, first_unique_id: ids[1]! } },
      conn
    )
    expect(tail?.list_prompts_response?.unique_prompt_id).toEqual(ids.slice(1))

    await world.runAsUser(plainId, "echo plain")
    expect(world.screenText(plainId)).toContain("plain")
    expect((await getPrompt(world, conn, plainId)).status).toBe("PROMPT_UNAVAILABLE")
    expect((await getPrompt(world, conn, "NO-SUCH-SESSION")).status).toBe("SESSION_NOT_FOUND")
    expect((await getPrompt(world, conn, sessionId, "NO-SUCH-PROMPT")).status).toBe("PROMPT_UNAVAILABLE")
  })
})
