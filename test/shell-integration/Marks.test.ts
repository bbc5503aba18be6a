/**
 * The bash and zsh snippets in real shells inside a private tmux server: the exact OSC 133 / OSC 7
 * sequence per prompt (what ran, what did not), the token announced to tmux and carried by every
 * mark, the user's prompt and hooks kept, nested shells, nothing printable after B, the command line
 * (zsh's C mark, bash's D from its history when it saved exactly that line), and the record of the
 * last command that ran (EarlierPrompt.ts reads it).
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decodeUrlText } from "../../src/domain/Osc133.js"
import { readPromptRecord } from "../../src/layers/backends/tmux/EarlierPrompt.js"
import { bashSnippet } from "../../src/shell-integration/BashSnippet.js"
import { zshSnippet } from "../../src/shell-integration/ZshSnippet.js"
import { markLetters, marksIn, promptText, withoutEscapes } from "./ShellStream.js"
import { TmuxShell } from "./TmuxShell.js"

interface ShellCase {
  readonly name: "bash" | "zsh"
  readonly argv: ReadonlyArray<string>
  readonly snippet: string
  /**
   * rc lines: PS1 `user> `, a prompt hook printing `hook saw <$?>`, a pre-command hook (PS0, preexec)
   * printing `pre ran`, then the snippet sourced twice.
   */
  readonly userRc: (snippetFile: string) => string
}

const cases: ReadonlyArray<ShellCase> = [
  {
    name: "bash",
    argv: ["bash", "--norc", "--noprofile", "-i"],
    snippet: bashSnippet,
    userRc: (file) =>
      [
        `PS1='user> '`,
        `PROMPT_COMMAND='echo "hook saw $?"'`,
        `PS0='pre ran\\n'`,
        `. '${file}'`,
        `. '${file}'`
      ].join("\n")
  },
  {
    name: "zsh",
    argv: ["zsh", "-f", "-i"],
    snippet: zshSnippet,
    userRc: (file) =>
      [
        `PS1='user> '`,
        `__user_hook() { print -r -- "hook saw $?" }`,
        "precmd_functions+=(__user_hook)",
        `__user_pre() { print -r -- "pre ran" }`,
        "preexec_functions+=(__user_pre)",
        `. '${file}'`,
        `. '${file}'`
      ].join("\n")
  }
]

/** The bytes after the last B mark, with escape sequences removed: must be empty at an idle prompt. */
const printedAfterLastB = (segment: string): string => {
  const b = marksIn(segment).findLast((m) => m.mark === "B")
  if (b === undefined) throw new Error(`no B in ${JSON.stringify(segment)}`)
  return withoutEscapes(segment.slice(b.end))
}

/** Starts `c` in a pane (its first prompt drawn, no rc yet). */
const startShell = (c: ShellCase) => TmuxShell.start(c.argv)

describe.each(cases)("$name snippet inside tmux", (c) => {
  let pane: TmuxShell
  let token: string
  let shellPid: number
  let snippetFile: string
  let rcFile: string

  beforeAll(async () => {
    pane = await startShell(c)
    snippetFile = join(pane.dir, `snippet.${c.name}`)
    rcFile = join(pane.dir, `rc.${c.name}`)
    writeFileSync(snippetFile, c.snippet)
    writeFileSync(rcFile, c.userRc(snippetFile))
    await pane.line(`. '${rcFile}'`)
    const tokens = await pane.tokens()
    // Its own token with its pid, and the nested secret it exports for shells that cannot reach tmux.
    expect(tokens).toHaveLength(2)
    expect(tokens[1]).toMatch(/^[0-9a-f]{32}:\d+:nested$/)
    const [announced, pid] = tokens[0]!.split(":")
    token = announced!
    shellPid = Number(pid)
    // The shell's own pid, so TermPilot can tell from /proc whether that shell holds the terminal.
    expect(pid).toBe(await pane.line("echo $$").then((t) => /\n(\d+)\r?\n/.exec(withoutEscapes(t))?.[1]))
  })
  afterAll(async () => {
    await pane?.close()
  })

  it("announces one token (sourced twice) of at least 16 lowercase hex chars, carried by every mark", async () => {
    expect(token).toMatch(/^[0-9a-f]{16,}$/)
    const segment = await pane.line("true")
    const marks = marksIn(segment).filter((m) => m.mark !== "7")
    expect(marks.length).toBeGreaterThan(0)
    for (const m of marks) expect(m.token).toBe(token)
  })

  it("numbers its prompts: the marks of one prompt share n, the next prompt's is one more", async () => {
    const marks = marksIn(await pane.line("true")).filter((m) => m.mark !== "7")
    expect(marks.map((m) => m.mark)).toEqual(["C", "D;0", "A", "B"])
    const [c1, d1, a2, b2] = marks.map((m) => m.seq)
    expect(c1).toBeGreaterThan(0)
    expect([c1, d1, a2, b2]).toEqual([c1, c1, c1! + 1, c1! + 1])
    const next = marksIn(await pane.line("")).filter((m) => m.mark !== "7")
    expect(next.map((m) => `${m.mark}:${m.seq}`)).toEqual([`D:${c1! + 1}`, `A:${c1! + 2}`, `B:${c1! + 2}`])
  })

  it("true, false, (exit 7): C, D with the status, OSC 7, A, B — one set per prompt", async () => {
    expect(markLetters(await pane.line("true"))).toBe("C D;0 7 A B")
    expect(markLetters(await pane.line("false"))).toBe("C D;1 7 A B")
    expect(markLetters(await pane.line("(exit 7)"))).toBe("C D;7 7 A B")
  })

  it("keeps the user's prompt text and hook, and the hook sees the real $?", async () => {
    const segment = await pane.line("(exit 5)")
    expect(promptText(segment)).toBe("user> ")
    const d = marksIn(segment).find((m) => m.mark === "D;5")!
    expect(segment.slice(d.end)).toContain("hook saw 5")
  })

  it("keeps the user's pre-command output (PS0 / preexec), before C", async () => {
    const segment = await pane.line("echo out")
    const c = marksIn(segment).find((m) => m.mark === "C")!
    expect(segment.slice(0, c.end)).toMatch(/pre ran\r*\n\x1b\]133;C;[^\x07]*\x07$/)
    expect(segment.slice(c.end)).toMatch(/^out\r\n/)
  })

  it("an empty Enter and a lone ';' give D without a status and no C", async () => {
    expect(markLetters(await pane.line(""))).toBe("D 7 A B")
    const lone = await pane.line(";")
    expect(markLetters(lone)).toBe("D 7 A B")
    expect(withoutEscapes(lone)).toMatch(/^;/) // it was typed (bash: a syntax error; zsh: an empty list)
  })

  it("Ctrl-C with text at the prompt gives D without a status; during sleep, D;130", async () => {
    const atPrompt = await pane.segment(async () => {
      await pane.type("echo never", false)
      await pane.key("C-c")
    })
    expect(markLetters(atPrompt)).toBe("D 7 A B")
    const started = await pane.segment(
      () => pane.type("sleep 30"),
      (t) => markLetters(t) === "C",
      "C for sleep"
    )
    expect(markLetters(started)).toBe("C")
    expect(markLetters(await pane.segment(() => pane.key("C-c")))).toBe("D;130 7 A B")
  })

  it("reports the cwd as OSC 7, percent-encoded (space, UTF-8)", async () => {
    const cdTmp = marksIn(await pane.line("cd /tmp")).find((m) => m.mark === "7")
    expect(cdTmp?.url).toBe(`file://${hostname()}/tmp`)
    const odd = join(pane.dir, "a b", "é")
    mkdirSync(odd, { recursive: true })
    const cdOdd = marksIn(await pane.line(`cd '${odd}'`)).find((m) => m.mark === "7")
    expect(cdOdd?.url).toBe(`file://${hostname()}${pane.dir}/a%20b/%C3%A9`)
  })

  it("sends the line the shell runs: zsh in C, bash in D (from its history, once it ran); a long line is left out", async () => {
    const carrier = (status: number) => (c.name === "zsh" ? "C" : `D;${status}`)
    const line = "sh -c 'exit 3' 'a;é'"
    const marks = marksIn(await pane.line(line))
    expect(decodeUrlText(marks.find((m) => m.mark === carrier(3))!.cmd!)).toBe(line)
    expect(marks.find((m) => m.mark === (c.name === "zsh" ? "D;3" : "C"))!.cmd).toBeNull()
    const long = marksIn(await pane.line(`: ${"x".repeat(3000)}`)).find((m) => m.mark === carrier(0))!
    expect(long.cmd).toBe("")
  })

  it.runIf(c.name === "bash")(
    "bash: a line its history did not save as the newest entry (ignored, a repeat, history off) is sent as unknown",
    async () => {
      const sent = async (line: string) => marksIn(await pane.line(line)).find((m) => m.mark === "D;0")!.cmd
      await pane.line("HISTCONTROL=ignoreboth")
      expect(await sent(" echo hidden")).toBe("")
      expect(decodeUrlText((await sent("echo twice"))!)).toBe("echo twice")
      expect(await sent("echo twice")).toBe("")
      await pane.line("set +o history")
      expect(await sent("echo off")).toBe("")
      await pane.line("set -o history")
      expect(decodeUrlText((await sent("echo on"))!)).toBe("echo on")
      await pane.line("HISTCONTROL=")
    }
  )

  it("records the last command that ran for a TermPilot started later; an empty Enter does not replace it", async () => {
    await pane.line("cd /tmp")
    const before = Date.now()
    const line = "sh -c 'sleep 0.2; exit 4'"
    const cMark = marksIn(await pane.line(line)).find((m) => m.mark === "C")!
    await pane.line("")
    const record = readPromptRecord(shellPid, token)
    expect(record?.last).toMatchObject({
      seq: cMark.seq,
      exitCode: 4,
      cwd: "/tmp",
      command: line
    })
    expect(record!.seq).toBe(cMark.seq! + 2)
    const { startedAt, finishedAt } = record!.last!
    expect(startedAt).toBeGreaterThanOrEqual(before - 1000)
    expect(finishedAt! - startedAt!).toBeGreaterThanOrEqual(150)
    expect(finishedAt).toBeLessThanOrEqual(Date.now())
  })

  it("prints nothing after B at an idle prompt", async () => {
    const segment = await pane.line("echo text")
    expect(markLetters(segment)).toBe("C D;0 7 A B")
    expect(printedAfterLastB(segment)).toBe("")
  })

  it("a nested shell appends its own token, strips inherited marks, and the parent's return", async () => {
    await pane.segment(
      () => pane.type(`export PS1; ${c.argv.join(" ")}`),
      (t) => markLetters(t).startsWith("C"),
      "the nested shell to start"
    )
    const nested = await pane.line(`. '${snippetFile}'`)
    const tokens = await pane.tokens()
    // The nested shell reaches tmux: it announces its own token and keeps the pane's nested secret.
    expect(tokens).toHaveLength(3)
    const [outer, , inner] = tokens.map((t) => t.split(":")[0])
    expect(outer).toBe(token)
    expect(inner).not.toBe(token)
    expect(markLetters(nested)).toBe("D 7 A B")
    for (const m of marksIn(nested).filter((m) => m.mark !== "7")) expect(m.token).toBe(inner)
    // `exit` runs in the nested shell (its C), then the parent's command ends (its D;0) and it prompts.
    const back = marksIn(await pane.line("exit")).filter((m) => m.mark !== "7")
    expect(back.map((m) => `${m.mark}:${m.token}`)).toEqual([
      `C:${inner}`,
      `D;0:${token}`,
      `A:${token}`,
      `B:${token}`
    ])
  })
})

/**
 * A framework that sets the prompt in its own hook, added after the snippet (so after our last hook),
 * in a shell with options that break careless scripts (bash `set -u`; zsh nounset, ksh_arrays, …).
 */
const frameworkRc: Record<ShellCase["name"], (snippetFile: string) => ReadonlyArray<string>> = {
  bash: (file) => [
    "set -u",
    "unset PROMPT_COMMAND PS0",
    `PS1='x> '`,
    `. '${file}'`,
    `PROMPT_COMMAND+=$'\\n''PS1="fw> "'`
  ],
  zsh: (file) => [
    "setopt nounset ksh_arrays sh_word_split glob_subst",
    `PS1='x> '`,
    `. '${file}'`,
    `__fw() { PS1='fw> '; RPROMPT='[right]' }`,
    "precmd_functions+=(__fw)"
  ]
}

describe.each(cases)("$name snippet under a prompt framework and hostile options", (c) => {
  let pane: TmuxShell

  beforeAll(async () => {
    pane = await startShell(c)
    const snippetFile = join(pane.dir, `snippet.${c.name}`)
    const rcFile = join(pane.dir, `rc.${c.name}`)
    writeFileSync(snippetFile, c.snippet)
    writeFileSync(rcFile, frameworkRc[c.name](snippetFile).join("\n"))
    await pane.segment(
      () => pane.type(`. '${rcFile}'`),
      (t) => markLetters(t).includes("D"),
      "the rc to be sourced"
    )
  })
  afterAll(async () => {
    await pane?.close()
  })

  it("re-wraps a prompt rewritten at every prompt, keeping B last (zsh: after RPROMPT)", async () => {
    await pane.line("true")
    const segment = await pane.line("false")
    expect(markLetters(segment).replace(/^(C D;1 7 A B)( B)?$/, "$1")).toBe("C D;1 7 A B")
    expect(promptText(segment)).toMatch(/^fw> /)
    if (c.name === "zsh") expect(withoutEscapes(segment)).toContain("[right]")
    expect(printedAfterLastB(segment)).toBe("")
  })
})

describe("bash snippet with an array PROMPT_COMMAND (bash >= 5.1)", () => {
  let pane: TmuxShell

  beforeAll(async () => {
    pane = await startShell(cases[0]!)
    const snippetFile = join(pane.dir, "snippet.bash")
    const rcFile = join(pane.dir, "rc.bash")
    writeFileSync(snippetFile, bashSnippet)
    writeFileSync(
      rcFile,
      [`PS1='user> '`, `PROMPT_COMMAND=('echo "one saw $?"' 'echo "two saw $?"')`, `. '${snippetFile}'`].join(
        "\n"
      )
    )
    await pane.line(`. '${rcFile}'`)
  })
  afterAll(async () => {
    await pane?.close()
  })

  it("runs both user elements after D, each seeing the real $?", async () => {
    const segment = await pane.line("(exit 3)")
    expect(markLetters(segment)).toBe("C D;3 7 A B")
    const afterD = segment.slice(marksIn(segment).find((m) => m.mark === "D;3")!.end)
    expect(afterD).toMatch(/one saw 3\r\ntwo saw 3/)
    const declared = await pane.line("declare -p PROMPT_COMMAND")
    expect(declared).toContain(`declare -a PROMPT_COMMAND=`)
    expect(declared).toContain(`[1]="echo \\"one saw \\$?\\""`)
  })
})
