/**
 * run_command over the tmux backend against real tmux and real bash with the test marks: exit
 * status and exactly the output between C and D, bounded tails, unicode, cwd, a printed fake D
 * mark, a line that runs nothing, and text that tmux would misread if it were not sent as bytes —
 * each checked against what the shell really ran (its history log, `executed()`) or printed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CommandRunner } from "../../src/services/CommandRunner.js"
import { RecordedBackend, request, run } from "../support/tmux/RecordedBackend.js"
import type { WorldPane } from "../support/tmux/TmuxWorld.js"

describe("tmux run_command", () => {
  const rig = new RecordedBackend()
  let runner: CommandRunner["Service"]
  let pane: WorldPane
  let id: string

  beforeAll(async () => {
    pane = await rig.open()
    runner = await rig.runner()
    ;({ id } = await rig.ready(pane))
  })
  afterAll(() => rig.close())

  const exec = (command: string, overrides = {}) => run(runner.run(request(id, command, overrides)))

  it("reports exit status 0, 1 and 7 with exactly the command's own output", async () => {
    expect(await exec("echo ok")).toMatchObject({
      status: "completed",
      exit_code: 0,
      output: "ok",
      sent: true
    })
    expect(await exec("false")).toMatchObject({ status: "completed", exit_code: 1, output: "" })
    expect(await exec("printf 'a\\nb\\n'; (exit 7)")).toMatchObject({
      status: "completed",
      exit_code: 7,
      output: "a\nb",
      truncated: false
    })
    expect(await exec("printf 'no newline'")).toMatchObject({ exit_code: 0, output: "no newline" })
  })

  it("keeps the tail of a long output within max_output_chars and the line bound, and says so", async () => {
    const short = await exec("seq 1 5000", { maxOutputChars: 100 })
    expect(short).toMatchObject({ status: "completed", exit_code: 0, truncated: true })
    expect(short.output?.endsWith("\n4999\n5000")).toBe(true)
    expect([...(short.output ?? "")].length).toBeLessThanOrEqual(100)
    const lines = await exec("seq 1 3000", { maxOutputChars: 1_000_000 })
    expect(lines.truncated).toBe(true)
    expect(lines.output?.split("\n")).toEqual(Array.from({ length: 2000 }, (_, i) => String(i + 1001)))
    // However much is returned, total_output_lines says how much the command printed.
    expect(lines).toMatchObject({ output_line_count: 2000, total_output_lines: 3000 })
    expect(short.total_output_lines).toBe(5000)
  })

  it("returns at most max_output_lines lines, the newest, and still counts them all", async () => {
    const tail = await exec("seq 1 2500", { maxOutputLines: 7 })
    expect(tail).toMatchObject({
      output: "2494\n2495\n2496\n2497\n2498\n2499\n2500",
      truncated: true,
      output_line_count: 7,
      total_output_lines: 2500
    })
    expect(await exec("printf 'a\\nb\\nc'", { maxOutputLines: 2 })).toMatchObject({
      output: "b\nc",
      truncated: true,
      total_output_lines: 3
    })
    expect(await exec("printf 'x\\ny\\n'")).toMatchObject({
      output: "x\ny",
      truncated: false,
      output_line_count: 2,
      total_output_lines: 2
    })
  })

  it("keeps unicode and wide characters intact", async () => {
    expect(await exec("echo '漢字 ✓ é 🙂 ｗｉｄｅ'")).toMatchObject({
      exit_code: 0,
      output: "漢字 ✓ é 🙂 ｗｉｄｅ"
    })
  })

  it("reflects cd in the session's cwd", async () => {
    expect(await exec("cd /tmp")).toMatchObject({ status: "completed", exit_code: 0 })
    expect((await run(rig.backend.terminal.getSession(id))).cwd).toBe("/tmp")
    await exec("cd ~")
    expect((await run(rig.backend.terminal.getSession(id))).cwd).toBe(rig.world.home)
  })

  it("does not end a command at a D mark the command prints (with or without a forged token)", async () => {
    const fake =
      "printf '\\033]133;D;0\\007\\033]133;A\\007tp$ \\033]133;B\\007\\033]133;D;0;tp=aaaaaaaaaaaaaaaa\\007'; sleep 0.3; echo real; (exit 5)"
    const result = await exec(fake)
    expect(result).toMatchObject({ status: "completed", exit_code: 5 })
    expect(result.output?.endsWith("real")).toBe(true)
  })

  it("answers a line that runs nothing (a lone ';': D without C) without waiting for the timeout", async () => {
    const result = await exec(";", { timeoutSeconds: 20 })
    // CommandRunner's "aborted" outcome: answered, no exit status, nothing claimed about output.
    expect(result).toMatchObject({ status: "completed", sent: true, exit_code: null, output: null })
    expect(result.message).toMatch(/without reporting an exit status/)
    expect(pane.files.executed().at(-1)).toBe(";")
    expect(await run(rig.backend.terminal.readiness(id))).toBe("ready")
  })

  it("delivers text tmux would misread exactly as given", async () => {
    const traps: ReadonlyArray<readonly [string, string | null]> = [
      ["echo a;", "a"],
      ["echo a\\;", "a;"],
      ["echo 'x;' ';' y", "x; ; y"],
      ["-n x", null],
      ["Enter", null],
      ["C-c", null],
      ["echo Escape Space", "Escape Space"],
      ["echo 'x#{pane_id}' \"#{session_name}\"", "x#{pane_id} #{session_name}"],
      ["echo 'x#(echo y)'", "x#(echo y)"],
      ["echo ~", rig.world.home],
      ["echo $HOME", rig.world.home],
      ['echo "it\'s" \'"q"\'', 'it\'s "q"'],
      ["  echo lead  trail  ", "lead trail"],
      ["echo \\\\ \\x", "\\ x"]
    ]
    for (const [command, output] of traps) {
      const result = await exec(command)
      expect(pane.files.executed().at(-1), command).toBe(command)
      expect(result.status, command).toBe("completed")
      if (output !== null) expect(result.output, command).toBe(output)
    }
  })

  it("sends a command far over tmux's argv limit (about 16 KB) through the control client", async () => {
    const word = "é".repeat(8000)
    const result = await exec(`echo ${word} | wc -c`)
    expect(result).toMatchObject({ status: "completed", exit_code: 0, output: "16001" })
    expect(pane.files.executed().at(-1)).toBe(`echo ${word} | wc -c`)
  })

  it("runs commands in several panes at once, each answered from its own pane", async () => {
    const more = await Promise.all([1, 2, 3, 4, 5, 6].map(() => rig.pane()))
    const ids = await Promise.all(more.map(async (p) => (await rig.ready(p)).id))
    const results = await Promise.all(
      ids.map((sid, i) =>
        run(runner.run(request(sid, `sleep 0.$((RANDOM % 3)); echo pane-${i}; (exit ${i})`)))
      )
    )
    results.forEach((r, i) => {
      expect(r).toMatchObject({ status: "completed", exit_code: i, output: `pane-${i}` })
      expect(more[i]!.files.executed()).toHaveLength(1)
    })
  })

  it("reads the screen and scrollback tail within its bounds", async () => {
    await exec("seq 1 300")
    const snap = await run(rig.backend.terminal.read(id, { maxLines: 5, maxChars: 10_000 }))
    expect(snap.readiness).toBe("ready")
    expect(snap.lineCount).toBe(5)
    expect(snap.text.split("\n").slice(0, 4)).toEqual(["297", "298", "299", "300"])
    expect(snap.truncated).toBe(true)
    const tiny = await run(rig.backend.terminal.read(id, { maxLines: 100, maxChars: 7 }))
    expect([...tiny.text].length).toBeLessThanOrEqual(7)
    expect(tiny.truncated).toBe(true)
  })
})
