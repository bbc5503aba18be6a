/**
 * End to end over real tmux: list_sessions over panes of two sessions and two servers with the
 * fields tmux itself reports; run_command exit codes, exactly the output between the marks, long
 * output tails, cwd after cd, unicode and wide characters; read_terminal's tail. Every command
 * is checked against the pane's input recorder (it received exactly the command and Enter).
 */
import { mkdirSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  currentSession,
  listed,
  listSessions,
  numbered,
  readTerminal,
  runCommand
} from "../support/E2eHelpers.js"
import { openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig

beforeAll(async () => {
  rig = await openTmuxRig({ servers: 2 })
})

afterAll(async () => {
  await rig?.close()
})

/** Runs a command through TermPilot and checks the pane received exactly it and Enter. */
const runExactly = async (pane: RigPane, command: string, extra: Record<string, unknown> = {}) => {
  const mark = pane.files.recorder.mark()
  const result = await runCommand(rig.mcp, { session_id: pane.id, command, timeout_seconds: 20, ...extra })
  expect(pane.files.recorder.textSince(mark), "what the pane received").toBe(`${command}\r`)
  expect(pane.files.executed().at(-1), "what the shell ran").toBe(command)
  return result
}

/** Output with and without a final newline, and wide characters, come back exactly, with their line count. */
const expectUnfinishedLinesExact = async (pane: RigPane) => {
  for (const [command, output] of [
    ["printf abc", "abc"],
    ["printf 'one\\ntwo'", "one\ntwo"],
    ["printf '%s' 漢字-wide", "漢字-wide"]
  ] as const) {
    const ran = await runExactly(pane, command)
    expect(ran.data, command).toMatchObject({
      status: "completed",
      exit_code: 0,
      output,
      total_output_lines: output.split("\n").length
    })
  }
}

describe("list_sessions over two sessions and two servers", () => {
  it("lists every pane with tmux's own ids, names, tty and readiness; ids differ across servers", async () => {
    const { world, worlds } = rig
    const a = await rig.pane({ name: "win-a" })
    const b = await rig.pane({ session: "second", name: "win-b" })
    const c = await rig.pane({ world: worlds[1]!, session: "other-server", name: "win-c" })
    const plain = await rig.pane({ name: "no-integration", shell: "plain" })
    await world.tmux("select-pane", "-t", a.paneId, "-T", "title of a")

    const sessions = await listSessions(rig.mcp)
    expect(sessions.map((s) => s.session_id).sort()).toEqual([a.id, b.id, c.id, plain.id].sort())
    for (const pane of [a, b, c]) {
      const fmt = (f: string) => pane.world.format(pane.paneId, f)
      const s = sessions.find((x) => x.session_id === pane.id)!
      expect(s).toMatchObject({
        backend: "tmux",
        window_id: await fmt("#{session_id}"),
        window_number: Number(await fmt("#{window_index}")),
        tab_id: await fmt("#{window_id}"),
        window_title: await fmt("#{session_name}"),
        tab_title: await fmt("#{window_name}"),
        session_title: await fmt("#{pane_title}"),
        tty: await fmt("#{pane_tty}"),
        job_name: await fmt("#{pane_current_command}"),
        hostname: hostname(),
        profile_name: null,
        tag: null,
        buried: false,
        // No human client is attached to any of these servers.
        is_current: false,
        execution_readiness: "ready"
      })
      expect(s.tty).toMatch(/^\/dev\/pts\/\d+$/)
    }
    expect(sessions.find((s) => s.session_id === a.id)).toMatchObject({
      session_title: "title of a",
      tab_title: "win-a",
      window_title: "main"
    })
    expect(sessions.find((s) => s.session_id === b.id)?.window_title).toBe("second")
    // No OSC 7 from a shell without integration: the cwd is the one tmux reads from the OS.
    expect(sessions.find((s) => s.session_id === plain.id)).toMatchObject({
      execution_readiness: "shell_integration_required",
      cwd: await world.format(plain.paneId, "#{pane_current_path}")
    })
    // The first pane of each server is %0 there: the ids must still differ, by socket and server.
    expect(c.paneId).toBe("%0")
    expect(c.id).toContain(worlds[1]!.socket)
    expect(c.id).not.toBe(a.id)
  })

  it("get_current_session: no human client attached, so no current session", async () => {
    const current = await currentSession(rig.mcp)
    expect(current.isError).toBe(true)
    expect(current.data).toMatchObject({ error_code: "no_current_session" })
  })
})

describe("run_command", () => {
  it.each([0, 1, 7])("reports exit code %i and only the command's own output", async (code) => {
    const pane = await rig.pane()
    const command = `printf 'first-%s\\nsecond-%s\\n' ${code} ${code}; (exit ${code})`
    const result = await runExactly(pane, command)
    expect(result.isError).toBe(false)
    expect(result.data).toMatchObject({
      session_id: pane.id,
      command,
      status: "completed",
      sent: true,
      exit_code: code,
      output: `first-${code}\nsecond-${code}`,
      truncated: false,
      output_line_count: 2,
      error_code: null
    })
  })

  it("runs in a pane of a second session and of a second server, each by its exact id", async () => {
    const here = await rig.pane({ session: "second" })
    const there = await rig.pane({ world: rig.worlds[1]!, session: "other-server" })
    const hereMark = here.files.recorder.mark()
    const inThere = await runExactly(there, "echo on-the-other-server; (exit 3)")
    expect(inThere.data).toMatchObject({ status: "completed", exit_code: 3, output: "on-the-other-server" })
    expect(here.files.recorder.since(hereMark).length).toBe(0)
    const inHere = await runExactly(here, "echo in-the-second-session")
    expect(inHere.data).toMatchObject({ status: "completed", exit_code: 0, output: "in-the-second-session" })
  })

  it("keeps the tail of long output: max_output_chars, the 2000-line bound, and a 1.3 MB flood", async () => {
    const pane = await rig.pane()
    const cut = await runExactly(pane, "seq 1 500", { max_output_chars: 20 })
    // "496\n…\n500" is 19 code points; one more line would make 23.
    expect(cut.data).toMatchObject({
      status: "completed",
      exit_code: 0,
      output: "496\n497\n498\n499\n500",
      truncated: true,
      output_line_count: 5
    })
    const lines = await runExactly(pane, "seq 1 5000")
    expect(lines.data).toMatchObject({
      status: "completed",
      output: numbered("", 3001, 5000).join("\n"),
      truncated: true,
      output_line_count: 2000,
      total_output_lines: 5000
    })
    const few = await runExactly(pane, "seq 1 5000", { max_output_lines: 3 })
    expect(few.data).toMatchObject({
      output: "4998\n4999\n5000",
      output_line_count: 3,
      total_output_lines: 5000
    })
    const flood = await runExactly(pane, "seq 1 200000; (exit 4)", { max_output_chars: 30 })
    expect(flood.data).toMatchObject({
      status: "completed",
      exit_code: 4,
      output: "199997\n199998\n199999\n200000",
      truncated: true,
      total_output_lines: 200000
    })
    const whole = await runExactly(pane, "seq 101 400")
    expect(whole.data).toMatchObject({ output: numbered("", 101, 400).join("\n"), truncated: false })
  })

  it("a cd shows as the new cwd, also for a path with spaces and non-ASCII letters", async () => {
    const target = join(rig.world.root, "after cd é")
    mkdirSync(target)
    const pane = await rig.pane()
    const result = await runExactly(pane, `cd '${target}'`)
    expect(result.data).toMatchObject({ status: "completed", exit_code: 0, output: "" })
    expect((await listed(rig.mcp, pane.id)).cwd).toBe(target)
    const tmp = await runExactly(pane, "cd /tmp && pwd")
    expect(tmp.data).toMatchObject({ exit_code: 0, output: "/tmp" })
    expect((await listed(rig.mcp, pane.id)).cwd).toBe("/tmp")
  })

  it("keeps unicode and wide characters intact, in the command and in its output", async () => {
    const pane = await rig.pane()
    const words = ["héllo wörld", "世界 ｗｉｄｅ", "😀 emoji", "עברית"]
    const command = `printf '%s\\n' ${words.map((w) => `'${w}'`).join(" ")}`
    const result = await runExactly(pane, command)
    expect(result.data).toMatchObject({ status: "completed", exit_code: 0, output: words.join("\n") })
  })

  it("works with another terminal's standard marks (extra parameters, no token)", async () => {
    const pane = await rig.pane({ shell: "foreign" })
    const result = await runExactly(pane, "printf 'foreign-%s\\n' 1 2; (exit 6)")
    expect(result.data).toMatchObject({ status: "completed", exit_code: 6, output: "foreign-1\nforeign-2" })
  })

  it("works the same in a zsh pane", async () => {
    const pane = await rig.pane({ shell: "zsh" })
    const result = await runExactly(pane, "print -r -- zsh-$ZSH_NAME; (exit 5)")
    expect(result.data).toMatchObject({ status: "completed", exit_code: 5, output: "zsh-zsh" })
    // Output without a final newline: zsh's PROMPT_SP ("%", spaces, CR) must not garble its last line.
    await expectUnfinishedLinesExact(pane)
  })

  it("works the same in a fish pane: exit code, output (also without a final newline), cwd", async () => {
    const pane = await rig.pane({ shell: "fish" })
    const result = await runExactly(pane, "echo fish-(math 40 + 2); false")
    expect(result.data).toMatchObject({ status: "completed", exit_code: 1, output: "fish-42" })
    // fish marks output without a final newline (⏎, spaces, CR) after D: not inside the output.
    await expectUnfinishedLinesExact(pane)
    await runExactly(pane, "cd /tmp")
    expect((await listed(rig.mcp, pane.id)).cwd).toBe("/tmp")
  })
})

describe("read_terminal", () => {
  it("reads the newest lines of screen and scrollback within max_lines and max_chars", async () => {
    const pane = await rig.pane()
    await rig.world.runAsUser(pane, "for i in $(seq 1 80); do echo scroll-$i; done", (s) =>
      s.endsWith("scroll-80\ntp$")
    )
    const five = await readTerminal(rig.mcp, { session_id: pane.id, max_lines: 5 })
    expect(five.isError).toBe(false)
    expect(five.data.content.replace(/ +$/, "")).toBe([...numbered("scroll-", 77, 80), "tp$"].join("\n"))
    expect(five.data).toMatchObject({ line_count: 5, truncated: true, execution_readiness: "ready" })
    const all = await readTerminal(rig.mcp, { session_id: pane.id, max_lines: 200 })
    const lines = all.data.content.split("\n")
    expect(lines.slice(lines.indexOf("scroll-1"), lines.indexOf("scroll-80") + 1)).toEqual(
      numbered("scroll-", 1, 80)
    )
  })
})
