/**
 * list_commands on iTerm2, through the real backend over the fake iTerm2's wire protocol (real
 * bash sessions with shell integration): the commands a person typed, from iTerm2's own prompt
 * list (also those from before TermPilot connected), and exactly one command's output read by rows
 * from its output range: head, an offset, the tail; lines that left the history; unknown keys.
 */
import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandState } from "../../src/domain/iterm2/PromptCommands.js"
import {
  type CommandRecord,
  type OutputFrom,
  type ReadBounds,
  Terminal
} from "../../src/services/Terminal.js"
import { type BackendRig, openBackendRig } from "./BackendRig.js"

const WIDE: ReadBounds = { maxLines: 10_000, maxChars: 1_000_000 }

describe("list_commands on iTerm2", () => {
  let rig: BackendRig
  beforeAll(async () => {
    rig = await openBackendRig({ world: { cols: 100, rows: 30 } })
  })
  afterAll(async () => {
    await rig?.close()
  })

  const list = (sessionId: string, limit: number, afterKey: string | null = null) =>
    rig.run(Effect.flatMap(Terminal, (t) => t.listCommands(sessionId, limit, afterKey)))
  const readEffect = (sessionId: string, key: string, bounds: ReadBounds, from: OutputFrom) =>
    Effect.flatMap(Terminal, (t) => t.commandText(sessionId, key, bounds, from))
  const read = (sessionId: string, key: string, bounds: ReadBounds, from: OutputFrom) =>
    rig.run(readEffect(sessionId, key, bounds, from))
  /** The kinds of the requests the fake received since `mark`. */
  const kindsSince = (mark: number) =>
    rig.server.requests.slice(mark).map(({ request }) => Object.keys(request)[0])
  const summary = (c: CommandRecord) => [c.command, c.exitCode, c.status, c.cwd]

  it("lists what the person typed, newest last, with exit codes and directories; limit and afterKey", async () => {
    const { world } = rig
    const { sessionId } = await world.createWindow()
    const home = world.home
    await world.runAsUser(sessionId, "echo before-connect")
    // TermPilot has not connected yet: this command is known from iTerm2's list alone.
    expect(rig.server.connectionCount).toBe(0)
    expect(await list(sessionId, 10)).toEqual([
      {
        key: expect.any(String),
        command: "echo before-connect",
        exitCode: 0,
        cwd: home,
        startedAt: null,
        finishedAt: null,
        status: "finished",
        promptId: expect.any(String),
        outputLineCount: 1,
        outputUnavailable: null
      }
    ])

    await world.runAsUser(sessionId, "mkdir -p tp-sub && cd tp-sub")
    await world.runAsUser(sessionId, "printf 'one\\ntwo\\nthree\\n'; false")
    await world.runAsUser(sessionId, "tp-no-such-command")
    await world.runAsUser(sessionId, "") // an empty Enter: a prompt, no command
    await world.startAsUser(sessionId, "printf 'run%s\\n' ning; sleep 30")
    await world.waitFor(sessionId, (shell) => shell.screen.screenText().includes("\nrunning"))
    const sub = `${home}/tp-sub`
    const whileRunning = await list(sessionId, 10)
    expect(whileRunning.map(summary)).toEqual([
      ["echo before-connect", 0, "finished", home],
      ["mkdir -p tp-sub && cd tp-sub", 0, "finished", home],
      ["printf 'one\\ntwo\\nthree\\n'; false", 1, "finished", sub],
      ["tp-no-such-command", 127, "finished", sub],
      ["printf 'run%s\\n' ning; sleep 30", null, "running", sub]
    ])
    expect(whileRunning.map((c) => c.outputLineCount)).toEqual([1, 0, 3, 1, 1])
    expect(whileRunning.every((c) => c.outputUnavailable === null)).toBe(true)
    const running = whileRunning[4]!
    expect(await read(sessionId, running.key, WIDE, "tail")).toEqual({
      text: "running",
      lineCount: 1,
      truncated: false,
      totalLines: 1,
      firstLine: 0,
      lostLines: 0,
      exitCode: null,
      status: "running"
    })
    expect(await read(sessionId, whileRunning[2]!.key, WIDE, "head")).toMatchObject({
      text: "one\ntwo\nthree",
      totalLines: 3,
      exitCode: 1,
      status: "finished"
    })

    world.type(sessionId, "\x03") // the person interrupts it
    await world.waitFor(sessionId, "prompt")
    world.type(sessionId, "echo half-typed") // and types at the new prompt, without Enter
    await world.waitFor(sessionId, (shell) => shell.prompts.currentCommand() === "echo half-typed")
    // iTerm2 holds 7 prompts; the empty Enter's reports the line being typed as its command.
    const marks = world.shell(sessionId).prompts.list()
    expect(marks).toHaveLength(7)
    expect(world.shell(sessionId).prompts.response(marks[4]!, null).command).toBe("echo half-typed")

    const all = await list(sessionId, 10)
    expect(all.map(summary)).toEqual([
      ["echo before-connect", 0, "finished", home],
      ["mkdir -p tp-sub && cd tp-sub", 0, "finished", home],
      ["printf 'one\\ntwo\\nthree\\n'; false", 1, "finished", sub],
      ["tp-no-such-command", 127, "finished", sub],
      ["printf 'run%s\\n' ning; sleep 30", 130, "finished", sub]
    ])
    expect(all.map((c) => c.key)).toEqual(whileRunning.map((c) => c.key))
    expect(all.map((c) => c.promptId)).toEqual(all.map((c) => c.key))
    expect(new Set(all.map((c) => c.key)).size).toBe(5)
    expect(all.map((c) => c.key)).toEqual([
      marks[0]!.id,
      marks[1]!.id,
      marks[2]!.id,
      marks[3]!.id,
      marks[5]!.id
    ])

    expect(await list(sessionId, 2)).toEqual(all.slice(3))
    expect(await list(sessionId, 10, all[1]!.key)).toEqual(all.slice(2))
    expect(await list(sessionId, 1, all[1]!.key)).toEqual(all.slice(4))
    expect(await list(sessionId, 10, all[4]!.key)).toEqual([])
    expect(await list(sessionId, 10, "NOT-A-PROMPT-OF-THIS-SESSION")).toEqual(all)
  })

  it("names a command TermPilot typed by the prompt id its submit returned", async () => {
    const { world } = rig
    const { sessionId } = await world.createWindow()
    await rig.observe(sessionId)
    const { promptId } = await rig.run(
      Effect.flatMap(Terminal, (t) => t.submit(sessionId, "echo via-termpilot"))
    )
    expect(await rig.commandEnd(sessionId, promptId!)).toBe(0)
    await world.waitFor(sessionId, (shell) => shell.prompts.last()?.id !== promptId)
    expect(await list(sessionId, 5)).toMatchObject([
      { key: promptId, promptId, command: "echo via-termpilot", exitCode: 0, outputLineCount: 1 }
    ])
  })

  it("reads exactly the lines a 5,000-line command printed: head, an offset, the tail", async () => {
    const { world } = rig
    const { sessionId } = await world.createWindow({ scrollback: 6_000 })
    const lines = Array.from({ length: 5_000 }, (_, i) => `big-${i + 1}`)
    await world.runAsUser(sessionId, "seq -f 'big-%g' 1 5000")
    await world.runAsUser(sessionId, "echo after-big")
    const [big, after] = await list(sessionId, 10)
    expect(big).toMatchObject({ command: "seq -f 'big-%g' 1 5000", outputLineCount: 5_000 })
    const done = { exitCode: 0, status: "finished", lostLines: 0, totalLines: 5_000 }

    for (const from of ["head", "tail"] as const) {
      expect(await read(sessionId, big!.key, WIDE, from)).toEqual({
        text: lines.join("\n"),
        lineCount: 5_000,
        truncated: false,
        firstLine: 0,
        ...done
      })
    }
    const hundred = { maxLines: 100, maxChars: 1_000_000 }
    expect(await read(sessionId, big!.key, hundred, "head")).toEqual({
      text: lines.slice(0, 100).join("\n"),
      lineCount: 100,
      truncated: true,
      firstLine: 0,
      ...done
    })
    const mark = rig.server.requests.length
    expect(await read(sessionId, big!.key, hundred, 2_500)).toEqual({
      text: lines.slice(2_500, 2_600).join("\n"),
      lineCount: 100,
      truncated: true,
      firstLine: 2_500,
      ...done
    })
    // One fetch, of exactly the 100 rows returned.
    const fetches = rig.server.requests.slice(mark).flatMap(({ request }) => {
      const range = request.get_buffer_request?.line_range?.windowed_coord_range?.coord_range
      return range === undefined ? [] : [(range.end?.y ?? 0) - (range.start?.y ?? 0)]
    })
    expect(fetches).toEqual([100])
    expect(await read(sessionId, big!.key, hundred, "tail")).toEqual({
      text: lines.slice(4_900).join("\n"),
      lineCount: 100,
      truncated: true,
      firstLine: 4_900,
      ...done
    })
    expect(await read(sessionId, big!.key, hundred, 4_990)).toEqual({
      text: lines.slice(4_990).join("\n"),
      lineCount: 10,
      truncated: true,
      firstLine: 4_990,
      ...done
    })
    // Character bounds: whole lines from the head, or from the tail (20 code points, "\n" counted).
    expect(await read(sessionId, big!.key, { maxLines: 100, maxChars: 20 }, "head")).toMatchObject({
      text: "big-1\nbig-2\nbig-3",
      lineCount: 3,
      truncated: true,
      firstLine: 0
    })
    expect(await read(sessionId, big!.key, { maxLines: 100, maxChars: 20 }, "tail")).toMatchObject({
      text: "big-4999\nbig-5000",
      lineCount: 2,
      truncated: true,
      firstLine: 4_998
    })
    // The neighbour's output is its own, and nothing of the prompts between them.
    expect(await read(sessionId, after!.key, WIDE, "head")).toMatchObject({
      text: "after-big",
      totalLines: 1
    })
  })

  /** A session whose last command printed `own` lines; while a read is under way the person prints 200 more. */
  const partlyLost = async (from: OutputFrom, bounds: ReadBounds) => {
    const { world } = rig
    const { sessionId } = await world.createWindow({ scrollback: 300 })
    const own = Array.from({ length: 250 }, (_, i) => `own-${i + 1}`)
    await world.runAsUser(sessionId, "seq -f 'own-%g' 1 250")
    const [command] = await list(sessionId, 5)
    expect(command).toMatchObject({ command: "seq -f 'own-%g' 1 250", outputLineCount: 250 })
    const outputStart = world.shell(sessionId).prompts.byId(command!.key)!.outputStart!.y
    rig.server.beforeNext("get_buffer_request", () => world.runAsUser(sessionId, "seq -f 'later-%g' 1 200"))
    const text = await read(sessionId, command!.key, bounds, from)
    // The fake's own count of the lines that left the history.
    const lost = world.shell(sessionId).screen.overflow - outputStart
    expect(lost).toBeGreaterThan(0)
    expect(lost).toBeLessThan(250)
    return { sessionId, key: command!.key, own, lost, text }
  }

  it("reports the lines that left the history during a read, and returns only the command's own", async () => {
    const head = await partlyLost("head", WIDE)
    expect(head.text).toEqual({
      text: head.own.slice(head.lost).join("\n"),
      lineCount: 250 - head.lost,
      truncated: true,
      totalLines: 250,
      firstLine: head.lost,
      lostLines: head.lost,
      exitCode: 0,
      status: "finished"
    })
    // Its prompt's line went too: iTerm2 dropped the prompt, and the key names no command now.
    const gone = await rig.failure(readEffect(head.sessionId, head.key, WIDE, "head"))
    expect(gone).toMatchObject({ _tag: "TermPilotError", code: "invalid_request" })
    expect((await list(head.sessionId, 10)).map((c) => c.command)).toEqual(["seq -f 'later-%g' 1 200"])

    const tail = await partlyLost("tail", { maxLines: 50, maxChars: 1_000_000 })
    expect(tail.text).toEqual({
      text: tail.own.slice(200).join("\n"),
      lineCount: 50,
      truncated: true,
      totalLines: 250,
      firstLine: 200,
      lostLines: tail.lost,
      exitCode: 0,
      status: "finished"
    })
  })

  it("refuses a key that is no prompt of the session, reading nothing else", async () => {
    const { world } = rig
    const first = await world.createWindow()
    const second = await world.createWindow()
    await world.runAsUser(first.sessionId, "echo mine")
    const [mine] = await list(first.sessionId, 1)
    expect(mine).toMatchObject({ command: "echo mine" })

    for (const [sessionId, key] of [
      [first.sessionId, "FORGED-KEY"],
      [second.sessionId, mine!.key]
    ] as const) {
      const mark = rig.server.requests.length
      const failure = await rig.failure(readEffect(sessionId, key, WIDE, "tail"))
      expect(failure).toMatchObject({ _tag: "TermPilotError", code: "invalid_request" })
      expect(kindsSince(mark)).toEqual(["list_prompts_request"])
    }
    const mark = rig.server.requests.length
    expect(await rig.failure(readEffect(first.sessionId, "", WIDE, "tail"))).toMatchObject({
      code: "invalid_request"
    })
    expect(kindsSince(mark)).toEqual([])

    // The prompt being typed at is a prompt, but no command has output there yet.
    const editing = world.lastPromptId(first.sessionId)!
    const before = rig.server.requests.length
    expect(await rig.failure(readEffect(first.sessionId, editing, WIDE, "tail"))).toMatchObject({
      code: "output_unavailable"
    })
    expect(kindsSince(before)).not.toContain("get_buffer_request")

    const unknown = randomUUID().toUpperCase()
    expect(
      await rig.failure(Effect.flatMap(Terminal, (t) => t.listCommands(unknown, 5, null)))
    ).toMatchObject({ code: "session_not_found" })
  })

  it("counts a running prompt with a newer prompt after it as ended without a status", () => {
    const running = { prompt_state: "RUNNING" as const, unique_prompt_id: "P1" }
    expect(commandState(running, undefined)).toEqual({ status: "running", exitCode: null })
    expect(commandState(running, { prompt_state: "EDITING", unique_prompt_id: "P2" })).toEqual({
      status: "unknown",
      exitCode: null
    })
    expect(commandState({ prompt_state: "FINISHED", exit_status: 3 }, undefined)).toEqual({
      status: "finished",
      exitCode: 3
    })
    expect(commandState({ prompt_state: "EDITING" }, undefined)).toBeNull()
    expect(commandState({}, undefined)).toBeNull()
  })
})
