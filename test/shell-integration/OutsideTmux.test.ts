/**
 * Outside tmux ($TMUX unset) the snippet does nothing: a real shell in a node-pty pty prints
 * byte-for-byte what it prints without the snippet, and never runs `tmux` (a recording `tmux` comes
 * first on PATH). A positive control with $TMUX set proves the same file was sourced and calls tmux.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as pty from "node-pty"
import { afterAll, describe, expect, it } from "vitest"
import { bashSnippet } from "../../src/shell-integration/BashSnippet.js"
import { zshSnippet } from "../../src/shell-integration/ZshSnippet.js"
import { markLetters } from "./ShellStream.js"
import { cleanEnv, waitSettled } from "./TmuxShell.js"

const cases = [
  { name: "bash", argv: ["bash", "--norc", "--noprofile", "-i"], snippet: bashSnippet },
  { name: "zsh", argv: ["zsh", "-f", "-i"], snippet: zshSnippet }
] as const

/** Typed after the rc, one per prompt; they show the prompt variables and any function we would define. */
const COMMANDS = [
  "true",
  "false",
  `echo "[\${PROMPT_COMMAND-}|\${PS0-}|\${precmd_functions-}|\${preexec_functions-}]"`,
  "typeset -f | grep -c __tp_",
  "cd /tmp",
  "echo $?"
]

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const count = (text: string, part: string) => text.split(part).length - 1

/** Runs the shell through the rc (PS1 `P> `, then the snippet when `snippet` is set) and COMMANDS. */
const session = async (
  argv: ReadonlyArray<string>,
  snippet: string | null,
  extraEnv: Readonly<Record<string, string>> = {}
) => {
  const dir = mkdtempSync(join(tmpdir(), "tp-outside-"))
  dirs.push(dir)
  const bin = join(dir, "bin")
  mkdirSync(bin)
  const calls = join(dir, "tmux-calls")
  writeFileSync(join(bin, "tmux"), `#!/bin/sh\nprintf '<%s>' "$@" >> '${calls}'\necho >> '${calls}'\n`)
  chmodSync(join(bin, "tmux"), 0o755)
  const rc = join(dir, "rc")
  const snippetFile = join(dir, "snippet")
  writeFileSync(snippetFile, snippet ?? "")
  writeFileSync(rc, `PS1='P> '\n${snippet === null ? "" : `. '${snippetFile}'\n`}`)
  const env = {
    ...cleanEnv(dir, { TP_RC: rc, ...extraEnv }),
    PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`
  }
  const term = pty.spawn(argv[0]!, argv.slice(1), {
    name: "xterm-256color",
    cols: 100,
    rows: 30,
    cwd: "/",
    env
  })
  let out = ""
  term.onData((data) => {
    out += data
  })
  const exited = new Promise<void>((resolve) => term.onExit(() => resolve()))
  try {
    await waitSettled(
      () => out,
      (t) => t.length > 0,
      `${argv[0]} to start`
    )
    const lines = ['. "$TP_RC"', ...COMMANDS]
    for (const [i, line] of lines.entries()) {
      term.write(`${line}\r`)
      await waitSettled(
        () => out,
        (t) => count(t, "P> ") > i,
        `the prompt after ${line}`
      )
    }
    term.write("exit\r")
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${argv[0]} did not exit`)), 10_000)
      void exited.then(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  } finally {
    term.kill()
  }
  return { out, calls: existsSync(calls) ? readFileSync(calls, "utf8") : null }
}

/**
 * The output up to the last prompt, where `exit` was typed: what the pty still held when the shell
 * exited may be lost (node-pty can report the exit before the last read), so the echo of `exit`
 * is not compared.
 */
const beforeExit = (out: string) => out.slice(0, out.lastIndexOf("P> "))

describe.each(cases)("$name snippet outside tmux", (c) => {
  it("prints byte-for-byte what the shell prints without it, and never runs tmux", async () => {
    const without = await session(c.argv, null)
    const withSnippet = await session(c.argv, c.snippet)
    expect(without.out).toContain("P> ")
    expect(beforeExit(withSnippet.out)).toBe(beforeExit(without.out))
    expect(withSnippet.calls).toBeNull()
  })

  it("(control) with $TMUX set, the same rc emits marks and announces its token with one tmux call", async () => {
    const inside = await session(c.argv, c.snippet, { TMUX: "/nonexistent/sock,1,0", TMUX_PANE: "%9" })
    expect(markLetters(inside.out)).toContain("C D;0 7 A B")
    expect(inside.calls).toMatch(
      /^<set><-p><-a><-t><%9><@termpilot_tokens>< [0-9a-f]{32}:\d+ [0-9a-f]{32}:\d+:nested>\n$/
    )
  })
})
