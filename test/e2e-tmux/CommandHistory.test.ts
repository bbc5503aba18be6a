/**
 * End to end over real tmux with bash, zsh and fish: the person's own commands, typed with
 * send-keys, as list_commands lists them (exit codes 0, 1, 127 and 130, an empty Enter that is no
 * entry, a command still running, TermPilot's own run_command with its request id) and
 * read_command_output reads them back from tmux's history: a 5,000-line output from its head, its
 * middle and its tail equals what the command wrote to a file through `tee`; an output that partly
 * left the history says so and returns only its own lines; entries carry their command line. Output that prints marks (forged ones, a forged `cmd=` among them, and a replay of the pane's
 * own) makes no entry and relabels none; the last command a shell ran before TermPilot watched the
 * pane is listed from that shell's own record (exit code, directory, its line, no output: tmux
 * cannot prove where it lies), an empty Enter before is no entry, and another shell's
 * record proves nothing; an edited command_id reads nothing.
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCommand, typed, waitForReadiness } from "../support/E2eHelpers.js"
import type { ShellKind } from "../support/tmux/PaneShell.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import { openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"
import { TmuxWorld, type WorldPane } from "../support/tmux/TmuxWorld.js"

interface Listed {
  readonly command_id: string
  readonly command: string | null
  readonly exit_code: number | null
  readonly status: string
  readonly ran_by: string
  readonly request_id: string | null
  readonly output_line_count: number | null
  readonly output_available: boolean
  readonly output_unavailable_reason: string | null
  readonly cwd: string | null
  readonly started_at: string | null
  readonly finished_at: string | null
}

interface OutputView {
  readonly output: string
  readonly total_output_lines: number
  readonly first_line: number
  readonly lost_lines: number
  readonly truncated: boolean
  readonly exit_code: number | null
  readonly status: string
}

let rig: TmuxRig
/** Per shell, a pane where the person ran `sh -c 'exit 2'`, then pressed Enter, before TermPilot started. */
const earlier: Partial<Record<ShellKind, WorldPane>> = {}
/** A pane where the person only pressed Enter before TermPilot started. */
let emptyOnly: WorldPane
/** A pane whose shell's record was replaced by another shell's (another token). */
let otherRecord: WorldPane

/** Where the snippet records a pane's shell (the rig's panes set neither XDG_RUNTIME_DIR nor TMPDIR). */
const recordFile = (pane: WorldPane) =>
  join("/tmp", `termpilot-${process.getuid?.() ?? 0}`, `${pane.files.shellPid()}`)

/** Types `line` and Enter, and waits for the shell's next prompt on the screen (its record is written before it draws). */
const ranBefore = async (world: TmuxWorld, pane: WorldPane, line: string) => {
  const prompts = pane.files.prompts()
  await world.type(pane, line)
  await world.press(pane, "Enter")
  await waitUntil(`${pane.paneId}: the prompt after '${line}'`, () => pane.files.prompts() > prompts)
  await world.waitForScreen(pane, (s) => s.endsWith("tp$"))
}

beforeAll(async () => {
  const world = TmuxWorld.create()
  emptyOnly = await world.newSession("main")
  await ranBefore(world, emptyOnly, "")
  for (const shell of ["bash", "zsh", "fish"] as const) {
    const pane = await world.newWindow("main", { shell })
    await ranBefore(world, pane, "sh -c 'exit 2'")
    await ranBefore(world, pane, "")
    earlier[shell] = pane
  }
  otherRecord = await world.newWindow("main")
  await ranBefore(world, otherRecord, "false")
  copyFileSync(recordFile(earlier.bash!), recordFile(otherRecord))
  rig = await openTmuxRig({ worlds: [world] })
}, 60_000)

afterAll(async () => {
  await rig?.close()
})

const listCommands = async (pane: RigPane, args: Record<string, unknown> = {}) => {
  const result = await typed<{ commands: ReadonlyArray<Listed> }>(rig.mcp, "list_commands", {
    session_id: pane.id,
    limit: 200,
    ...args
  })
  expect(result.isError, JSON.stringify(result.data)).toBe(false)
  return result.data.commands
}

const readOutput = (pane: RigPane, commandId: string, args: Record<string, unknown> = {}) =>
  typed<OutputView>(rig.mcp, "read_command_output", { session_id: pane.id, command_id: commandId, ...args })

/**
 * Types `line` and Enter as the person would, and waits for the shell's next prompt. First it
 * looks at the pane's commands, as a person reads before typing on: a command started within the
 * few milliseconds TermPilot takes to re-read the pane's rows after losing track (zsh clearing
 * below its prompt at the top row, say) is listed without its output, by design.
 */
const personRuns = async (pane: RigPane, line: string) => {
  await listCommands(pane)
  const prompts = pane.files.prompts()
  await rig.world.type(pane, line)
  await rig.world.press(pane, "Enter")
  await waitUntil(`${pane.paneId}: the prompt after '${line}'`, () => pane.files.prompts() > prompts, 20_000)
}

/** Waits until list_commands has `count` entries, the newest finished; returns them. */
const settledEntries = async (pane: RigPane, count: number) => {
  let last: ReadonlyArray<Listed> = []
  await waitUntil(`${pane.paneId}: ${count} finished entries`, async () => {
    last = await listCommands(pane)
    return last.length === count && last.at(-1)?.status === "finished"
  })
  return last
}

const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i))

describe.each<ShellKind>(["bash", "zsh", "fish"])("%s: the person's commands", (shell) => {
  let pane: RigPane
  let entries: ReadonlyArray<Listed>
  let teeFile: string

  beforeAll(async () => {
    pane = await rig.pane({ shell })
    teeFile = join(rig.world.root, `tee-${shell}.txt`)
    await personRuns(pane, "true")
    await personRuns(pane, "false")
    await personRuns(pane, "tp_no_such_command_here")
    await personRuns(pane, "")
    const prompts = pane.files.prompts()
    await rig.world.type(pane, "sleep 30")
    await rig.world.press(pane, "Enter")
    await waitUntil("sleep to run", () => pane.files.foreground() === "sleep")
    let running: Listed | undefined
    await waitUntil("sleep's entry", async () => {
      running = (await listCommands(pane))[3]
      return running !== undefined
    })
    expect(running).toMatchObject({ status: "running", exit_code: null })
    await rig.world.press(pane, "C-c")
    await waitUntil("the prompt after C-c", () => pane.files.prompts() > prompts)
    await personRuns(pane, `seq 1 5000 | tee ${teeFile}`)
    entries = await settledEntries(pane, 5)
  }, 60_000)

  it("lists each command once, newest last, with its exit code and line; the empty Enter is no entry", () => {
    expect(entries.map((e) => e.exit_code)).toEqual([0, 1, 127, 130, 0])
    const typedLines = ["true", "false", "tp_no_such_command_here", "sleep 30", `seq 1 5000 | tee ${teeFile}`]
    // zsh and fish send it as the command starts, bash from its history once it ended.
    expect(entries.map((e) => e.command)).toEqual(typedLines)
    for (const e of entries) {
      expect(e).toMatchObject({ status: "finished", ran_by: "person", request_id: null })
      expect(e.output_available, e.output_unavailable_reason ?? "").toBe(true)
    }
    expect(entries[0]!.output_line_count).toBe(0)
    expect(entries[2]!.output_line_count).toBeGreaterThan(0)
    expect(entries[4]!.output_line_count).toBe(5000)
  })

  it("reads the 5,000 lines from the head, the middle and the tail exactly as tee wrote them", async () => {
    const written = readFileSync(teeFile, "utf8").trimEnd().split("\n")
    expect(written).toEqual(lines(1, 5000))
    const id = entries[4]!.command_id
    const head = await readOutput(pane, id, { from: "head", max_lines: 100 })
    expect(head.isError, JSON.stringify(head.data)).toBe(false)
    expect(head.data.output.split("\n")).toEqual(written.slice(0, 100))
    expect(head.data).toMatchObject({
      total_output_lines: 5000,
      first_line: 0,
      lost_lines: 0,
      truncated: true
    })
    const middle = await readOutput(pane, id, { from: 2500, max_lines: 100 })
    expect(middle.data.output.split("\n")).toEqual(written.slice(2500, 2600))
    expect(middle.data.first_line).toBe(2500)
    const tail = await readOutput(pane, id, { max_lines: 100 })
    expect(tail.data.output.split("\n")).toEqual(written.slice(4900))
    expect(tail.data).toMatchObject({ first_line: 4900, exit_code: 0, status: "finished" })
    const pages: Array<string> = []
    for (const from of [0, 2000, 4000]) {
      const page = await readOutput(pane, id, { from, max_lines: 2000, max_chars: 100_000 })
      expect(page.isError, JSON.stringify(page.data)).toBe(false)
      pages.push(page.data.output)
    }
    expect(pages.join("\n")).toBe(written.join("\n"))
  })

  it("a command's output is nothing of its prompt or command line", async () => {
    const read = await readOutput(pane, entries[2]!.command_id, { from: "head" })
    expect(read.data.exit_code).toBe(127)
    expect(read.data.output).toContain("tp_no_such_command_here")
    expect(read.data.output).not.toContain("tp$")
    const empty = await readOutput(pane, entries[0]!.command_id)
    expect(empty.data).toMatchObject({ output: "", total_output_lines: 0 })
  })

  it("an edited command_id reads nothing", async () => {
    const id = entries[4]!.command_id
    const edited = id.slice(0, -2) + (id.endsWith("A") ? "B" : "A") + id.slice(-1)
    const read = await readOutput(pane, edited)
    expect(read.isError).toBe(true)
    expect(JSON.stringify(read.data)).toContain("invalid_request")
  })
})

describe("TermPilot's own commands", () => {
  it("a run_command entry carries its request_id", async () => {
    const pane = await rig.pane()
    await personRuns(pane, "echo by-person")
    // The recorder sees the prompt before TermPilot's stream may: run_command refuses until then.
    await waitForReadiness(rig.mcp, pane.id, "ready")
    const ran = await runCommand(rig.mcp, { session_id: pane.id, command: "echo by-termpilot" })
    expect(ran.isError, JSON.stringify(ran.data)).toBe(false)
    const [person, ours] = await settledEntries(pane, 2)
    expect(person).toMatchObject({ ran_by: "person", request_id: null })
    expect(ours).toMatchObject({ ran_by: "termpilot", request_id: ran.data.request_id, exit_code: 0 })
    const read = await readOutput(pane, ours!.command_id)
    expect(read.data.output).toBe("by-termpilot")
  })
})

describe.each<ShellKind>(["bash", "zsh", "fish"])("%s: the command run before TermPilot started", (shell) => {
  it("is listed from its shell's record: exit code, directory, line, times (bash, zsh), no output and why", async () => {
    const pane: RigPane = { ...earlier[shell]!, id: await rig.world.sessionId(earlier[shell]!) }
    const cwd = await rig.world.format(pane.paneId, "#{pane_current_path}")
    const listed = await listCommands(pane)
    // The empty Enter after it is no entry, and does not hide it.
    expect(listed).toHaveLength(1)
    const [before] = listed
    expect(before).toMatchObject({
      command: "sh -c 'exit 2'",
      exit_code: 2,
      cwd,
      status: "finished",
      ran_by: "person",
      request_id: null,
      output_line_count: null,
      output_available: false
    })
    expect(before!.output_unavailable_reason).toMatch(/ran before TermPilot watched this pane/)
    const times = [before!.started_at, before!.finished_at]
    if (shell === "fish") expect(times).toEqual([null, null])
    else {
      const [started, finished] = times.map((t) => Date.parse(t ?? ""))
      expect(started! <= finished! && finished! <= Date.now(), JSON.stringify(times)).toBe(true)
    }
    const recorded = readFileSync(recordFile(earlier[shell]!))
    const read = await readOutput(pane, before!.command_id)
    expect(read.isError).toBe(true)
    expect(JSON.stringify(read.data)).toContain("output_unavailable")
    // The commands after it are listed as TermPilot watches them, after it.
    await personRuns(pane, "sh -c 'exit 3'")
    const [first, live] = await settledEntries(pane, 2)
    expect(first!.command_id).toBe(before!.command_id)
    // Typed at the prompt drawn before TermPilot started: its directory is the one reported then.
    expect(live).toMatchObject({ exit_code: 3, command: "sh -c 'exit 3'", cwd })
    // The record, put back as it was, is older than what TermPilot saw: it adds nothing.
    writeFileSync(recordFile(earlier[shell]!), recorded)
    expect((await listCommands(pane)).map((e) => e.command_id)).toEqual([
      before!.command_id,
      live!.command_id
    ])
  })
})

describe("what proves no command from before TermPilot started", () => {
  it("an empty Enter is no entry; another shell's record (another token) proves nothing", async () => {
    const empty: RigPane = { ...emptyOnly, id: await rig.world.sessionId(emptyOnly) }
    expect(await listCommands(empty)).toEqual([])
    const other: RigPane = { ...otherRecord, id: await rig.world.sessionId(otherRecord) }
    expect(await listCommands(other)).toEqual([])
    // TermPilot learns where the pane's rows are from its first output since it started: the person
    // presses Enter first (no entry), as a command typed in that very instant has no output to offer.
    const prompts = other.files.prompts()
    await rig.world.press(other, "Enter")
    await waitUntil("the prompt after Enter", () => other.files.prompts() > prompts)
    await personRuns(other, "echo after-watching")
    const [only] = await settledEntries(other, 1)
    expect((await readOutput(other, only!.command_id)).data.output).toBe("after-watching")
  })
})

describe("output that prints marks", () => {
  it("forged marks (a forged cmd= too) and a replay of the pane's own make no entry, end none, relabel none", async () => {
    // zsh: its own marks carry the line (cmd=), so the replay holds lines too.
    const pane = await rig.pane({ shell: "zsh" })
    const raw = join(rig.world.root, `own-marks-${pane.paneId.slice(1)}.log`)
    await rig.world.tmux("pipe-pane", "-o", "-t", pane.paneId, `cat >> '${raw}'`)
    await personRuns(pane, "echo recorded; false")
    await rig.world.tmux("pipe-pane", "-t", pane.paneId)
    const forged = join(rig.world.root, "forged-marks.txt")
    const marks = ["A", "B", "C", "D;0"].map((m) => `\x1b]133;${m}\x07`).join("")
    const tokened = ["C;cmd=rm%20-rf%20~", "D;3;cmd=rm%20-rf%20~"]
      .map((m) => `\x1b]133;${m};tp=0123456789abcdef;n=99999\x07`)
      .join("")
    writeFileSync(forged, `${marks}fake output\n${tokened}\n`)
    await personRuns(pane, `cat ${forged}`)
    await personRuns(pane, `cat ${raw}`)
    const listed = await settledEntries(pane, 3)
    expect(listed.map((e) => e.exit_code)).toEqual([1, 0, 0])
    expect(listed.map((e) => e.command)).toEqual(["echo recorded; false", `cat ${forged}`, `cat ${raw}`])
    const replayed = await readOutput(pane, listed[2]!.command_id, { from: "head" })
    expect(replayed.data.output).toContain("recorded")
  })
})

describe("an output that partly left the history", () => {
  it("says how many lines are gone and returns only its own lines", async () => {
    const created = await rig.world.paneWithHistoryLimit(300)
    const pane: RigPane = { ...created, id: await rig.world.sessionId(created) }
    await waitUntil("the limited pane's prompt", () => pane.files.prompts() >= 1)
    await personRuns(pane, "echo first-command")
    await personRuns(pane, "seq 1 1000")
    const listed = await settledEntries(pane, 2)
    const read = await readOutput(pane, listed[1]!.command_id, { from: "head", max_lines: 50 })
    expect(read.isError, JSON.stringify(read.data)).toBe(false)
    expect(read.data.lost_lines).toBeGreaterThan(0)
    const first = Number(read.data.output.split("\n")[0])
    expect(first).toBe(read.data.lost_lines + 1)
    expect(read.data.output.split("\n")).toEqual(lines(first, first + 49))
    expect(listed[0]!.output_available).toBe(false)
  })
})

describe("when TermPilot loses track of the pane's rows", () => {
  it("output already in the history stays readable; what was on the screen or running says why not", async () => {
    const pane = await rig.pane()
    await personRuns(pane, "seq 1 100")
    await personRuns(pane, "seq 1 60")
    // A wide character: TermPilot does not follow its width, so it loses track until tmux tells it again.
    await personRuns(pane, "printf '\\360\\237\\230\\200 wide\\n'")
    // As a person would, look before typing on: TermPilot has asked tmux where the rows are by then.
    await settledEntries(pane, 3)
    await personRuns(pane, "echo after")
    const [early, onScreen, wide, after] = await settledEntries(pane, 4)
    expect(early!.output_available, early!.output_unavailable_reason ?? "").toBe(true)
    const read = await readOutput(pane, early!.command_id, { from: "head", max_lines: 200 })
    expect(read.data.output.split("\n")).toEqual(lines(1, 100))
    expect(onScreen!.output_available).toBe(false)
    expect(onScreen!.output_unavailable_reason).toMatch(/lost track.*width/)
    expect(wide).toMatchObject({ output_available: false, exit_code: 0 })
    const afterRead = await readOutput(pane, after!.command_id)
    expect(afterRead.data.output, JSON.stringify(afterRead.data)).toBe("after")
    const refused = await readOutput(pane, onScreen!.command_id)
    expect(refused.isError).toBe(true)
    expect(JSON.stringify(refused.data)).toContain("output_unavailable")
  })

  it("clearing the scrollback (clear) leaves nothing readable from before it", async () => {
    const pane = await rig.pane()
    await personRuns(pane, "seq 1 100")
    await personRuns(pane, "printf '\\033[H\\033[2J\\033[3J'")
    await settledEntries(pane, 2)
    await personRuns(pane, "echo fresh")
    const [before, , fresh] = await settledEntries(pane, 3)
    expect(before!.output_available).toBe(false)
    expect((await readOutput(pane, fresh!.command_id)).data.output).toBe("fresh")
  })
})
