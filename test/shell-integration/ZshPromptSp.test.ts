/**
 * zsh's PROMPT_SP (the end-of-line mark `%`/`#`, spaces to the last column, CR, spaces, CR, drawn
 * before any precmd hook) in real zsh inside tmux, from the pane's raw bytes (pipe-pane): with the
 * snippet, a command's output between C and D is exactly what it printed (then the snippet's end
 * of any escape string left open), also without a final newline, and the same PROMPT_SP bytes zsh would draw come right after D; the screen looks as it
 * would without the snippet. A user who turned PROMPT_SP (or PROMPT_CR) off gets none.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { zshSnippet } from "../../src/shell-integration/ZshSnippet.js"
import { marksIn, withoutEscapes } from "./ShellStream.js"
import { TmuxShell } from "./TmuxShell.js"

/**
 * The eol mark zsh draws (bold standout `%`, or `#` for root), spaces to the last column of the
 * pane (as wide as this tmux made it), CR, a space, CR.
 */
const promptSp = async (shell: TmuxShell) => {
  const width = Number(await shell.tmux("display", "-p", "-t", "%0", "#{pane_width}"))
  return new RegExp(`^\\x1b\\[1m\\x1b\\[[37]m[%#]\\x1b\\[2[37]m\\x1b\\[1m\\x1b\\[0m {${width - 1}}\\r \\r`)
}

let pane: TmuxShell | undefined
afterEach(async () => {
  await pane?.close()
  pane = undefined
})

/** zsh -f in a 120-column pane, `rc` lines typed, then the snippet sourced. */
const zshWith = async (rc: ReadonlyArray<string>, snippet = true) => {
  pane = await TmuxShell.start(["zsh", "-f", "-i"])
  const file = join(pane.dir, "snippet.zsh")
  writeFileSync(file, zshSnippet)
  const lines = ["PS1='z> '", ...rc, ...(snippet ? [`. '${file}'`] : [])]
  const shell = pane
  await shell.segment(
    () => shell.type(lines.join("; ")),
    (t) => withoutEscapes(t).endsWith("z> "),
    "the rc to be sourced"
  )
  return shell
}

const END_STRINGS = "\x18\x1b\\"

/** The raw bytes between the C and D marks of `segment` (the snippet's string end left out), and those from D to the next A. */
const aroundD = (segment: string) => {
  const marks = marksIn(segment)
  const c = marks.find((m) => m.mark === "C")
  const d = marks.find((m) => m.mark.startsWith("D"))
  const a = marks.find((m) => m.mark === "A")
  if (c === undefined || d === undefined || a === undefined) throw new Error(JSON.stringify(segment))
  const dStart = segment.lastIndexOf("\x1b]133;D", d.end)
  const aStart = segment.lastIndexOf("\x1b]133;A", a.end)
  const beforeD = segment.slice(c.end, dStart)
  // The snippet ends any escape string the output left open (CAN, ST) right before its D.
  if (!beforeD.endsWith(END_STRINGS)) throw new Error(`no string end before D: ${JSON.stringify(beforeD)}`)
  return { output: beforeD.slice(0, -END_STRINGS.length), afterD: segment.slice(d.end, aStart) }
}

describe("zsh PROMPT_SP with the snippet", () => {
  it("keeps it out of the output: exactly what the command printed before D, the mark after D", async () => {
    const shell = await zshWith([])
    const PROMPT_SP = await promptSp(shell)
    for (const [command, printed] of [
      ["printf abc", "abc"],
      ["printf 'one\\ntwo'", "one\r\ntwo"], // the pty turns LF into CR LF
      ["echo full", "full\r\n"]
    ] as const) {
      const { output, afterD } = aroundD(await shell.line(command))
      expect(output, command).toBe(printed)
      expect(afterD, command).toMatch(PROMPT_SP)
    }
    // On the screen it is what zsh alone shows: the dangling line keeps its mark, the prompt below.
    const screen = (await shell.tmux("capture-pane", "-p", "-t", "%0")).split("\n")
    expect(screen.find((l) => l.startsWith("abc"))).toMatch(/^abc[%#]$/)
    expect(screen.find((l) => l.startsWith("two"))).toMatch(/^two[%#]$/)
  })

  it("draws it as zsh does without the snippet (same bytes, same screen)", async () => {
    const plain = await zshWith([], false)
    const segment = await plain.segment(
      () => plain.type("printf abc"),
      (t) => withoutEscapes(t).endsWith("z> "),
      "the prompt"
    )
    const drawn = segment.slice(segment.lastIndexOf("abc") + 3)
    expect(drawn).toMatch(await promptSp(plain))
  })

  it("draws none when the user turned PROMPT_SP or PROMPT_CR off", async () => {
    for (const option of ["no_prompt_sp", "no_prompt_cr"]) {
      const shell = await zshWith([`setopt ${option}`])
      const { output, afterD } = aroundD(await shell.line("printf abc"))
      expect(output).toBe("abc")
      expect(withoutEscapes(afterD), option).not.toMatch(/[%#] {10}/)
      await shell.close()
      pane = undefined
    }
  })
})
