/**
 * End to end over real tmux, the send-keys traps (reference §5): a trailing `;` or `\;`, a lone
 * `;`, a leading `-`, key names, `#{…}`/`#(…)` formats, `~` and `$VAR` all reach the shell as the
 * literal text given. Each is proven three ways, none of them TermPilot's own account: the pane's
 * input recorder holds exactly the text and Enter, the shell's history holds exactly the line,
 * and `tp_argv` wrote the argv bash parsed from it. And output cannot fake completion.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCommand } from "../support/E2eHelpers.js"
import { openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"

let rig: TmuxRig
let pane: RigPane

beforeAll(async () => {
  rig = await openTmuxRig()
  pane = await rig.pane()
})

afterAll(async () => {
  await rig?.close()
})

/** Runs `command`; proves the pane received and the shell ran exactly it; the result. */
const deliver = async (command: string) => {
  const mark = pane.files.recorder.mark()
  const result = await runCommand(rig.mcp, { session_id: pane.id, command, timeout_seconds: 20 })
  const { status, error_code, message } = result.data
  expect({ status, sent: result.data.sent }, `${error_code}: ${message?.slice(0, 300)}`).toEqual({
    status: "completed",
    sent: true
  })
  expect(pane.files.recorder.textSince(mark), "what the pane received").toBe(`${command}\r`)
  await expect.poll(() => pane.files.executed().at(-1), { timeout: 5_000 }).toBe(command)
  return result.data
}

describe("the literal text reaches the shell, whatever tmux would make of it", () => {
  const home = () => rig.world.home
  const cases: ReadonlyArray<readonly [string, () => ReadonlyArray<string>]> = [
    ["tp_argv echo a;", () => ["echo", "a"]],
    ["tp_argv echo a\\;", () => ["echo", "a;"]],
    ["tp_argv a ; tp_argv b", () => ["b"]],
    ["tp_argv -n x", () => ["-n", "x"]],
    ["tp_argv -- -x --", () => ["--", "-x", "--"]],
    ["tp_argv Enter C-c Escape Space BSpace", () => ["Enter", "C-c", "Escape", "Space", "BSpace"]],
    [
      "tp_argv '#{pane_id}' x#{session_name} '#{?pane_dead,a,b}'",
      () => ["#{pane_id}", "x#{session_name}", "#{?pane_dead,a,b}"]
    ],
    ["tp_argv '#(echo x)' '#[fg=red]' '##'", () => ["#(echo x)", "#[fg=red]", "##"]],
    ["tp_argv ~ '~' ~/x", () => [home(), "~", `${home()}/x`]],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${HOME}, literally
    ["tp_argv '$HOME' $HOME \"$HOME\" '${HOME}'", () => ["$HOME", home(), home(), "${HOME}"]],
    ["tp_argv \"it's\" 'say \"hi\"' \\\\ \\'", () => ["it's", 'say "hi"', "\\", "'"]],
    ["tp_argv é 世界 😀", () => ["é", "世界", "😀"]]
  ]

  it.each(cases)("%s", async (command, argv) => {
    const result = await deliver(command)
    expect(result.exit_code).toBe(0)
    expect(pane.files.argv()).toEqual(argv())
  })

  it("echo a; and echo a\\; print what bash makes of them", async () => {
    expect((await deliver("echo a;")).output).toBe("a")
    expect((await deliver("echo a\\;")).output).toBe("a;")
  })

  it("a command that is only a tmux key name or a flag runs as that word (not found: 127)", async () => {
    for (const command of ["Enter", "C-c", "-n x"]) {
      const result = await deliver(command)
      expect(result.exit_code).toBe(127)
      expect(result.output).toContain(`${command.split(" ")[0]}: command not found`)
    }
  })

  it("a lone ; (bash runs nothing) completes without waiting for the timeout", async () => {
    const started = Date.now()
    const result = await deliver(";")
    expect(result).toMatchObject({ status: "completed", sent: true, exit_code: null })
    expect(Date.now() - started).toBeLessThan(15_000)
    // The shell is at its prompt again and takes the next command.
    expect((await deliver("tp_argv after-lone-semicolon")).exit_code).toBe(0)
  })

  it("the longest command (8192 characters) arrives whole", async () => {
    const word = "x".repeat(8192 - "tp_argv ".length)
    await deliver(`tp_argv ${word}`)
    expect(pane.files.argv()).toEqual([word])
  })

  it("a long command (8000 two-byte letters, 16 kB of UTF-8) arrives whole", async () => {
    const word = "é".repeat(8000)
    await deliver(`tp_argv ${word}`)
    expect(pane.files.argv()).toEqual([word])
  })
})

describe("output cannot fake completion", () => {
  it("fake D marks (plain and with a made-up token) do not end the command early", async () => {
    const fakes = [
      "printf '\\e]133;D;0\\a'",
      "printf '\\e]133;D;0;tp=0123456789abcdef0123456789abcdef\\a'",
      "printf '\\e]133;A\\a\\e]133;B\\a'",
      "printf '\\e]133;D;0\\e\\\\'"
    ].join("; ")
    const command = `echo before; ${fakes}; sleep 1; echo after-fake; (exit 9)`
    const result = await deliver(command)
    expect(result).toMatchObject({ status: "completed", exit_code: 9, output: "before\nafter-fake" })
  })
})
