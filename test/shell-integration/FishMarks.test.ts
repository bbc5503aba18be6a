/**
 * The fish snippet in real fish inside a private tmux server: one token (sourced twice) with the
 * shell's pid and a nested secret exported as LC_TERMPILOT, carried by every mark; prompt numbers
 * as bash and zsh number them (a line that ran nothing gives D without a status); the person's
 * fish_prompt kept and given the real $status, their preexec hook kept; OSC 7 percent-encoded; and
 * the prompt record a TermPilot started later reads (EarlierPrompt.ts), with the last command that
 * ran; the command line in C.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decodeUrlText } from "../../src/domain/Osc133.js"
import { readPromptRecord } from "../../src/layers/backends/tmux/EarlierPrompt.js"
import { fishSnippet } from "../../src/shell-integration/FishSnippet.js"
import { markLetters, marksIn, promptText, withoutEscapes } from "./ShellStream.js"
import { TmuxShell } from "./TmuxShell.js"

let pane: TmuxShell
let token: string
let pid: number

beforeAll(async () => {
  pane = await TmuxShell.start(["fish", "--no-config"])
  const snippet = join(pane.dir, "snippet.fish")
  const rc = join(pane.dir, "rc.fish")
  writeFileSync(snippet, fishSnippet)
  writeFileSync(
    rc,
    [
      "function fish_prompt; printf 'user[%s]> ' $status; end",
      "function __user_pre --on-event fish_preexec; echo 'pre ran'; end",
      `source '${snippet}'`,
      `source '${snippet}'`,
      ""
    ].join("\n")
  )
  await pane.line(`source '${rc}'`)
  const tokens = await pane.tokens()
  expect(tokens).toHaveLength(2)
  expect(tokens[1]).toMatch(/^[0-9a-f]{32}:\d+:nested$/)
  const [own, shellPid] = tokens[0]!.split(":")
  token = own!
  pid = Number(shellPid)
})

afterAll(async () => {
  await pane?.close()
})

describe("fish snippet inside tmux", () => {
  it("announces one token with the shell's pid, carried by every mark, and exports the nested secret", async () => {
    expect(token).toMatch(/^[0-9a-f]{32}$/)
    const echoed = withoutEscapes(await pane.line("echo pid=$fish_pid lc=$LC_TERMPILOT"))
    expect(echoed).toContain(`pid=${pid} lc=%0:${(await pane.tokens())[1]!.split(":")[0]}`)
    const marks = marksIn(await pane.line("true")).filter((m) => m.mark !== "7")
    expect(marks.length).toBe(4)
    for (const m of marks) expect(m.token).toBe(token)
  })

  it("numbers its prompts as bash does: C and D share n, the next prompt's is one more; an empty line gives D alone", async () => {
    const marks = marksIn(await pane.line("true")).filter((m) => m.mark !== "7")
    expect(marks.map((m) => m.mark)).toEqual(["C", "D;0", "A", "B"])
    const [c1, d1, a2, b2] = marks.map((m) => m.seq!)
    expect([d1, a2, b2]).toEqual([c1, c1! + 1, c1! + 1])
    const empty = marksIn(await pane.line("")).filter((m) => m.mark !== "7")
    expect(empty.map((m) => `${m.mark}:${m.seq}`)).toEqual([`D:${c1! + 1}`, `A:${c1! + 2}`, `B:${c1! + 2}`])
  })

  it("true, false, sh -c 'exit 7': C, D with the status, OSC 7, A, B; the person's prompt sees that status", async () => {
    for (const [line, status] of [
      ["true", 0],
      ["false", 1],
      ["sh -c 'exit 7'", 7]
    ] as const) {
      const segment = await pane.line(line)
      expect(markLetters(segment), line).toBe(`C D;${status} 7 A B`)
      expect(promptText(segment), line).toBe(`user[${status}]> `)
    }
  })

  it("keeps the person's preexec hook, before C", async () => {
    const segment = await pane.line("true")
    const c = marksIn(segment).find((m) => m.mark === "C")!
    expect(withoutEscapes(segment.slice(0, c.end))).toContain("pre ran")
  })

  it("reports the cwd as OSC 7, percent-encoded (space, UTF-8)", async () => {
    const dir = join(pane.dir, "a dir ü")
    mkdirSync(dir)
    const seven = marksIn(await pane.line(`cd '${dir}'`)).find((m) => m.mark === "7")
    expect(seven?.url).toMatch(/^file:\/\/[^/]*\//)
    expect(seven?.url.endsWith(`${join(pane.dir, "a%20dir%20%C3%BC")}`)).toBe(true)
    await pane.line("cd /")
  })

  it("records the prompt it draws and the last command that ran (no times: fish has no clock), for a TermPilot started later", async () => {
    await pane.line("cd /tmp")
    const marks = marksIn(await pane.line("false")).filter((m) => m.mark === "B" || m.mark === "C")
    const record = readPromptRecord(pid, token)
    expect(record).toEqual({
      token,
      seq: marks.at(-1)!.seq,
      prompt: "user[1]> ",
      rprompt: "",
      last: {
        seq: marks[0]!.seq,
        exitCode: 1,
        startedAt: null,
        finishedAt: null,
        cwd: "/tmp",
        command: "false"
      }
    })
    // An empty line ran nothing: the record still names `false`.
    await pane.line("")
    expect(readPromptRecord(pid, token)?.last).toMatchObject({ seq: marks[0]!.seq, command: "false" })
  })

  it("C carries the line fish runs, percent-encoded; a line too long to carry is left out", async () => {
    const line = "sh -c 'exit 3' 'a;é'"
    const cMark = marksIn(await pane.line(line)).find((m) => m.mark === "C")!
    expect(decodeUrlText(cMark.cmd!)).toBe(line)
    const long = marksIn(await pane.line(`: ${"é".repeat(1100)}`)).find((m) => m.mark === "C")!
    expect(long.cmd).toBe("")
  })
})
