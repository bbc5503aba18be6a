/**
 * Where nothing proves a prompt, pure: a pane whose stream has no mark of its own (TermPilot
 * started after the shell or ssh that now holds its terminal) is `unknown` with the press-Enter
 * advice until a line comes from it, then `shell_integration_required` naming the program, its
 * host and what to install; never `ready`. A shell running a script carries no prompt.
 */
import { describe, expect, it } from "vitest"
import { PaneStream } from "../../src/domain/tmux/PaneStream.js"
import { type Evidence, paneReadiness, refusalReason } from "../../src/domain/tmux/TmuxReadiness.js"
import { shellRunsScript } from "../../src/layers/backends/tmux/Foreground.js"
import { markMaker, TOK } from "../support/tmux/Marks.js"
import { idleFlags } from "../support/tmux/PaneFixtures.js"

const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"))
const flags = idleFlags([`${TOK}:4242`])

/** A shell or transport started before watching holds the terminal of the pane's first shell. */
const held = (transport: string, args: ReadonlyArray<string> | null, unmarkedLine: boolean): Evidence => ({
  foreground: false,
  transport,
  transportArgs: args,
  unmarkedLine
})

const ssh = ["-q", "-tt", "-p", "2222", "root@tc-plain"]

describe("a pane with no mark of its own, held by a shell or ssh started earlier", () => {
  it("is unknown with the press-Enter advice while nothing came from it", () => {
    const s = new PaneStream([`${TOK}:4242`])
    const evidence = held("ssh", ssh, false)
    expect(paneReadiness(flags, s.facts, false, true, evidence)).toBe("unknown")
    expect(refusalReason(flags, "unknown", s.facts, evidence)).toMatch(
      /^it runs ssh to root@tc-plain, started before TermPilot started watching.*press Enter in the pane once/
    )
  })

  it("is shell_integration_required once a line came from it without a mark, naming the program and host", () => {
    const s = new PaneStream([`${TOK}:4242`])
    s.feed(enc("\r\nplain$ "))
    const evidence = held("ssh", ssh, true)
    expect(paneReadiness(flags, s.facts, false, true, evidence)).toBe("shell_integration_required")
    const reason = refusalReason(flags, "shell_integration_required", s.facts, evidence)
    expect(reason).toMatch(/^the inner shell \(ssh to root@tc-plain\) has no TermPilot snippet: /)
    expect(reason).toContain("termpilot shell-integration bash | ssh -p 2222 root@tc-plain 'cat >")
    const bash = held("bash", ["--norc", "-i"], true)
    expect(refusalReason(flags, "shell_integration_required", s.facts, bash)).toMatch(
      /^the inner shell \(bash\) has no TermPilot snippet: /
    )
  })

  it("stays unknown, never ready, while that cannot be told: in flight, not streaming, held at a mark, inside a string, foreground unread", () => {
    const s = new PaneStream([`${TOK}:4242`])
    const evidence = held("bash", [], true)
    expect(paneReadiness(flags, s.facts, true, true, evidence)).toBe("unknown")
    expect(paneReadiness(flags, s.facts, false, false, evidence)).toBe("unknown")
    expect(paneReadiness(flags, { ...s.facts, held: true }, false, true, evidence)).toBe("unknown")
    expect(paneReadiness(flags, { ...s.facts, openString: "OSC" }, false, true, evidence)).toBe("unknown")
    expect(paneReadiness(flags, s.facts, false, true, { ...evidence, foreground: null })).toBe("unknown")
    // Another program started earlier is busy, with or without output.
    expect(paneReadiness(flags, s.facts, false, true, { foreground: false, transport: null })).toBe("busy")
  })

  it("a shell whose snippet marks its next prompt leaves the state: ready at that prompt", () => {
    const mark = markMaker()
    const s = new PaneStream([`${TOK}:4242`])
    s.feed(enc(`\r\n${mark("D;0")}${mark("A")}$ ${mark("B")}`))
    expect(paneReadiness(flags, s.facts, false, true, { foreground: true, transport: null })).toBe("ready")
  })
})

describe("shellRunsScript", () => {
  it.each([
    ["bash", [], false],
    ["bash", ["--norc", "--noprofile", "-i"], false],
    ["bash", ["-l"], false],
    ["bash", ["--rcfile", "/tmp/rc"], false],
    ["bash", ["build.sh"], true],
    ["bash", ["-lc", "make"], true],
    ["sh", ["-e", "script.sh"], true],
    ["zsh", ["-c", "true"], true],
    ["fish", ["--no-config", "-C", "source rc"], false],
    ["fish", ["--command=ls"], true],
    ["bash", null, false],
    ["ssh", ["host", "uptime"], false]
  ] as const)("%s %j → %s", (program, args, runs) => {
    expect(shellRunsScript(program, args)).toBe(runs)
  })
})
