/**
 * One pane's mark stream against hostile output, pure: a tmux passthrough DCS (imgcat) hides no
 * mark and no typing after it; marks inside any string are no marks; replayed marks of earlier
 * prompts (the real token included) are refused and leave the pane in doubt until the shell's next
 * prompt, also inside a running command (no early end, the real exit code); strings cut off by
 * tmux's timer put the pane in doubt and are noted in the output; marks without a prompt number
 * from an announced token (an old snippet) are refused with a reason.
 */
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { PaneStream } from "../../src/domain/tmux/PaneStream.js"
import { paneReadiness, refusalReason } from "../../src/domain/tmux/TmuxReadiness.js"
import { STRING_TIMEOUT_MS } from "../../src/domain/VtParser.js"
import { markMaker, TOK } from "../support/tmux/Marks.js"
import { idleFlags } from "../support/tmux/PaneFixtures.js"

const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"))
const flags = idleFlags([TOK])
const readiness = (s: PaneStream) => paneReadiness(flags, s.facts, false)
const IMGCAT = "\x1bPtmux;\x1b\x1b]1337;File=inline=1;size=3:QUJD\x07\x1b\x1b]133;B;tp=x\x07\x1b\\"

const atPrompt = () => {
  const mark = markMaker()
  const s = new PaneStream([TOK])
  s.record = true
  s.feed(enc(`${mark("A")}$ ${mark("B")}`))
  return { s, mark }
}

describe("PaneStream against hostile output", () => {
  it("parses the prompt after an imgcat passthrough, sees typing after it, and keeps the output after it", () => {
    const { s, mark } = atPrompt()
    s.feed(
      enc(
        `imgcat x.png\r\n${mark("C")}${IMGCAT}\r\nafter the image\r\n${mark("D;0")}${mark("A")}$ ${mark("B")}`
      )
    )
    expect(s.output("1")?.lines).toEqual(["", "after the image"])
    expect(readiness(s)).toBe("ready")
    s.feed(enc("echo typed-by-user"))
    expect(readiness(s)).toBe("input_pending")
  })

  it("never counts a mark wrapped in a DCS, APC, PM, SOS or tmux title string, or in C1 form", () => {
    const { s, mark } = atPrompt()
    s.feed(enc(`sleep 30\r\n${mark("C")}`))
    const forged = () => `${mark("D;0")}${mark("A")}$ ${mark("B")}`
    // Inside a DCS a doubled ESC is data; inside the other strings any ESC would end them, so the
    // wrapped marks come without their ESC (a bare "]133;…" plus BEL), as a program would have to write them.
    const wrapped = [
      `\x1bPtmux;${forged().replaceAll("\x1b", "\x1b\x1b")}\x1b\\`,
      ...["_", "^", "X", "k"].map((intro) => `\x1b${intro}${forged().replaceAll("\x1b", "")}\x1b\\`),
      forged().replaceAll("\x1b]", "\x9d").replaceAll("\x07", "\x9c")
    ]
    for (const w of wrapped) {
      expect(s.feed(enc(w)).events).toEqual([])
      expect(s.facts.lastMark).toBe("C")
    }
  })

  it("refuses a replay of the pane's own earlier marks at the prompt: never ready, doubt until the next prompt", () => {
    const { s, mark } = atPrompt()
    // A recording of this shell's earlier prompts: prompt 0 ended, prompt 1 drawn (the real token).
    const recorded = `\x1b]133;D;0;tp=${TOK};n=0\x07\x1b]133;A;tp=${TOK};n=1\x07$ \x1b]133;B;tp=${TOK};n=1\x07`
    s.feed(enc(`cat session.log\r\n${mark("C")}`))
    const replay = s.feed(enc(recorded))
    expect(replay.events).toEqual([])
    expect(s.facts.lastMark).toBe("C")
    expect(s.facts.doubt).toMatch(/replayed/)
    expect(readiness(s)).toBe("unknown")
    expect(refusalReason(flags, "unknown", s.facts)).toMatch(/replayed .*next prompt/)
    // The shell's own next prompt (a newer number) verifies it again.
    const real = s.feed(enc(`${mark("D;0")}${mark("A")}$ ${mark("B")}`))
    expect(real.events.map((e) => e._tag)).toEqual(["CommandEnd", "Prompt"])
    expect(s.facts.doubt).toBeNull()
    expect(readiness(s)).toBe("ready")
  })

  it("inside a command, a replayed D of an earlier prompt (the real token) neither ends it nor sets its exit code", () => {
    const { s, mark } = atPrompt()
    s.feed(enc(`make\r\n${mark("C")}building\r\n`))
    const early = s.feed(enc(`${"\x1b]133;D;0;tp="}${TOK};n=0\x07${mark("A").replace(/n=\d+/, "n=1")}`))
    expect(early.events).toEqual([])
    s.feed(enc("still building\r\n"))
    const end = s.feed(enc(`${mark("D;2")}${mark("A")}$ ${mark("B")}`))
    expect(end.events).toContainEqual({ _tag: "CommandEnd", promptId: "1", exitCode: 2 })
    expect(s.output("1")?.lines).toEqual(["building", "still building"])
  })

  it("refuses a mark of the current prompt that its prompt is past (B or A again after C)", () => {
    const { s, mark } = atPrompt()
    s.feed(enc(`sleep 30\r\n${mark("C")}`))
    const b = `\x1b]133;B;tp=${TOK};n=1\x07`
    expect(s.feed(enc(b)).events).toEqual([])
    expect(s.facts).toMatchObject({ lastMark: "C", doubt: expect.stringMatching(/replayed/) })
    void mark
  })

  it("puts a pane in doubt when a string tmux would time out is left open, and notes it in the output", () => {
    const { s, mark } = atPrompt()
    s.feed(enc(`printf '\\eP'\r\n${mark("C")}`), 0)
    s.feed(enc("\x1bPq unterminated"), 10)
    expect(s.facts.openString).toBe("DCS")
    // Bytes tmux would have parsed after its timer reset the string: the prompt is seen again.
    s.feed(enc(`${mark("D;0")}${mark("A")}$ ${mark("B")}`), 10 + STRING_TIMEOUT_MS)
    expect(s.facts.openString).toBeNull()
    expect(s.output("1")?.lines.join("\n")).toMatch(/unterminated DCS escape string/)
    expect(readiness(s)).toBe("ready")
    const { s: open } = atPrompt()
    open.feed(enc("\x1b]0;never ended"))
    expect(readiness(open)).toBe("unknown")
    expect(refusalReason(flags, "unknown", open.facts)).toMatch(/escape string \(OSC\)/)
  })

  it("after the prompt, any string but a counted mark counts as typing; a redraw of the prompt does not", () => {
    const { s, mark } = atPrompt()
    s.feed(enc(`\r\x1b[K${mark("A")}$ ${mark("B")}`))
    expect(readiness(s)).toBe("ready")
    s.feed(enc(`\x1b]133;B;tp=${"ab".repeat(8)};n=5\x07`))
    expect(s.facts.echoedSinceB).toBe(true)
    const aborted = atPrompt().s
    aborted.feed(enc("\x1b]0;title swallowing typing\x18"))
    expect(readiness(aborted)).toBe("input_pending")
  })

  it("refuses marks without a prompt number from an announced token (an old snippet), saying so", () => {
    const s = new PaneStream([TOK])
    s.feed(enc(`\x1b]133;A;tp=${TOK}\x07$ \x1b]133;B;tp=${TOK}\x07`))
    expect(s.facts.lastMark).toBeNull()
    expect(readiness(s)).toBe("unknown")
    expect(refusalReason(flags, "unknown", s.facts)).toMatch(/older than this TermPilot/)
  })

  it("knows the pid the prompt's shell announced with its token, and which shell drew the last prompt", () => {
    const inner = "fedcba9876543210"
    const outerMark = markMaker(TOK)
    const innerMark = markMaker(inner)
    const s = new PaneStream([`${TOK}:4242`, `${inner}:4343`])
    s.feed(enc(`${outerMark("A")}$ ${outerMark("B")}`))
    expect(s.facts.shellPid).toBe(4242)
    s.feed(enc(`bash\r\n${outerMark("C")}${innerMark("D")}${innerMark("A")}$ ${innerMark("B")}`))
    expect(s.facts).toMatchObject({ lastMark: "B", shellPid: 4343 })
  })
})

describe("paneReadiness and the foreground", () => {
  const fg = (foreground: boolean | null) => ({ foreground, transport: null })
  it("is busy, not ready, when another program holds the terminal of the prompt's shell", () => {
    const { s } = atPrompt()
    expect(paneReadiness(flags, s.facts, false, true, fg(true))).toBe("ready")
    expect(paneReadiness(flags, s.facts, false, true, fg(null))).toBe("ready")
    expect(paneReadiness(flags, s.facts, false, true, fg(false))).toBe("busy")
    expect(refusalReason(flags, "busy", s.facts, fg(false))).toMatch(/another program holds its terminal/)
  })

  it("is shell_integration_required while a transport the shell started (ssh) holds a pane with no nested marks", () => {
    const { s, mark } = atPrompt()
    s.feed(enc(`ssh build-box\r\n${mark("C")}`))
    const ssh = { foreground: null, transport: "ssh" }
    expect(paneReadiness(flags, s.facts, false, true, ssh)).toBe("shell_integration_required")
    expect(refusalReason(flags, "shell_integration_required", s.facts, ssh)).toMatch(
      /the inner shell \(ssh\) has no TermPilot snippet.*ssh HOST/
    )
    expect(paneReadiness(flags, s.facts, false, true, fg(null))).toBe("busy")
    expect(paneReadiness(flags, s.facts, true, true, ssh)).toBe("busy")
  })

  it("a nested shell's token with another shell id proves nothing: a forged D cannot end its command", () => {
    const secret = "fedcba9876543210fedcba9876543210"
    const shellId = "00aa11bb22cc33dd"
    const token = createHash("sha256").update(`${secret}:${shellId}`).digest("hex")
    const nested = (body: string, sh: string) => `\x1b]133;${body};tp=${token};sh=${sh};n=1\x07`
    const s = new PaneStream([`${TOK}:10`, `${secret}:10:nested`])
    s.record = true
    const local = markMaker()
    s.feed(enc(`${local("A")}$ ${local("B")}ssh box\r\n${local("C")}`))
    s.feed(enc(`${nested("A", shellId)}remote$ ${nested("B", shellId)}sleep 9\r\n${nested("C", shellId)}`))
    expect(s.facts).toMatchObject({ lastMark: "C", nestedUnder: 10 })
    const step = s.feed(enc(`${nested("D;0", "99ee88ff77aa66bb")}`))
    expect(step.events).toEqual([])
    expect(s.facts.lastMark).toBe("C")
  })
})
