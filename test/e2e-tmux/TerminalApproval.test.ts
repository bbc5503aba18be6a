/**
 * End to end over real tmux, through the real MCP SDK client WITHOUT the elicitation capability
 * (approval.askIn 'auto', policy 'always'): the approval is asked on the person's own tmux client,
 * a real `tmux attach` in a PTY whose screen is rendered and read. What reached each pane is proven
 * from the panes' own input recorders. `y` types the command once; `n`, Escape, no answer (the
 * prompt withdrawn; a late `y` approves nothing) and a detached person type nothing; a pane that
 * prints `y` or the prompt's own text answers nothing; the answer's channel is in no process's
 * arguments and no tmux option; a control client that is not the person's never shows the prompt.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_APPROVAL_CONFIG } from "../../src/domain/ApprovalPolicy.js"
import { expectRejected, runCommand } from "../support/E2eHelpers.js"
import { call } from "../support/FakeIterm2Backend.js"
import { PersonClient } from "../support/tmux/PersonClient.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import { openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"

const TIMEOUT_SECONDS = 4
const PROMPT = "TermPilot asks for your approval"

let rig: TmuxRig
let person: PersonClient
let auditDir: string

beforeAll(async () => {
  auditDir = mkdtempSync(join(tmpdir(), "tp-askin-"))
  rig = await openTmuxRig({
    config: {
      approval: { ...DEFAULT_APPROVAL_CONFIG, policy: "always", timeoutSeconds: TIMEOUT_SECONDS },
      audit: { enabled: true, maxBytes: 1 << 20 }
    },
    auditPath: join(auditDir, "audit.jsonl")
  })
  await rig.pane()
  person = await PersonClient.attach(rig.world, "main")
})

afterAll(async () => {
  await person?.close()
  await rig?.close()
  if (auditDir !== undefined) rmSync(auditDir, { recursive: true, force: true })
})

/** A new ready pane in its own window, shown on the person's client. */
const shownPane = async (): Promise<RigPane> => {
  const pane = await rig.pane()
  await rig.world.tmux("select-window", "-t", pane.paneId)
  return pane
}

const promptGone = (screen: string) => !screen.includes(PROMPT)
const auditLines = () =>
  readFileSync(join(auditDir, "audit.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)

/** Starts run_command, waits for the prompt on the person's screen, then runs `answer`. */
/** How long the person takes to read the prompt before a key (no one answers faster). */
const READING_MS = 300
const reading = () => new Promise((resolve) => setTimeout(resolve, READING_MS))

const askAndAnswer = async (pane: RigPane, command: string, answer: () => void | Promise<void>) => {
  const ran = runCommand(rig.mcp, { session_id: pane.id, command })
  const screen = await person.waitForScreen(
    "the approval prompt",
    (s) => s.includes(PROMPT) && s.includes(`»${command}«`)
  )
  await reading()
  await answer()
  return { screen, ran: await ran }
}

describe("approvals asked on the person's own tmux client (a client without elicitation, askIn auto)", () => {
  it("the prompt names who asks, the target and the exact command; y types it once, and never on another control client", async () => {
    // Another control client (not TermPilot's), attached and the most recently active: no prompt reaches it.
    const other: ChildProcessWithoutNullStreams = spawn(
      "tmux",
      ["-S", rig.world.socket, "-f", "/dev/null", "-C", "attach", "-t", "main"],
      { env: rig.world.env() }
    )
    let otherOut = ""
    other.stdout.on("data", (chunk: Buffer) => {
      otherOut += chunk.toString("utf8")
    })
    try {
      other.stdin.write("refresh-client\n")
      const pane = await shownPane()
      const mark = pane.files.recorder.mark()
      const { screen, ran } = await askAndAnswer(pane, "echo approved-$((2+3))", () => person.press("y"))
      expect(ran.data).toMatchObject({ status: "completed", exit_code: 0, output: "approved-5" })
      expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(
        JSON.stringify("echo approved-$((2+3))\r")
      )
      expect(screen).toContain('The MCP client "termpilot-test-client" asks, through TermPilot:')
      expect(screen).toContain("»echo approved-$((2+3))«")
      expect(screen).toContain(`tmux session_id ${JSON.stringify(pane.id)}`)
      expect(screen).toContain(`Where: tmux pane ${pane.paneId} in window`)
      expect(screen).toContain('of session "main"')
      expect(screen).toMatch(/Directory: "\//)
      await person.waitForScreen("the prompt to close", promptGone)
      const line = auditLines().find((l) => l.request_id === ran.data.request_id && l.kind === "approval")
      expect(line).toMatchObject({
        outcome: "accepted",
        asked_in: "terminal",
        answered_by: `tmux client ${person.tty}`
      })
      expect(otherOut).not.toContain("TermPilot")
      expect(otherOut).not.toContain("approval")
    } finally {
      other.stdin.end()
      other.kill("SIGKILL")
    }
  })

  it("a pane the person made busy while the prompt was up is refused after y: only their keys arrived", async () => {
    const pane = await shownPane()
    const mark = pane.files.recorder.mark()
    const { ran } = await askAndAnswer(pane, "echo after-busy", async () => {
      await rig.world.type(pane, "sleep 3\r")
      await waitUntil("sleep in the foreground", () => pane.files.foreground() === "sleep")
      person.press("y")
    })
    expectRejected(ran, "session_not_ready")
    expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("sleep 3\r"))
    await waitUntil("sleep to end", () => pane.files.foreground() !== "sleep", 10_000)
  })

  it("n and Escape decline: declined_by_user, nothing reaches any pane, the prompt is gone", async () => {
    const pane = await shownPane()
    for (const key of ["n", "\x1b"]) {
      const { ran } = await expectNothingReached(
        rig.worlds,
        () => askAndAnswer(pane, "echo must-not-run", () => person.press(key)),
        `answer ${JSON.stringify(key)}`
      )
      expectRejected(ran, "declined_by_user")
      await person.waitForScreen("the prompt to close", promptGone)
      const line = auditLines().find((l) => l.request_id === ran.data.request_id && l.kind === "approval")
      expect(line).toMatchObject({
        outcome: "declined",
        asked_in: "terminal",
        answered_by: `tmux client ${person.tty}`
      })
    }
  })

  it("no answer: approval_timed_out, nothing sent, the prompt withdrawn; a late y approves nothing", async () => {
    const pane = await shownPane()
    const { ran } = await expectNothingReached(rig.worlds, () =>
      askAndAnswer(pane, "echo too-late", () => undefined)
    )
    expectRejected(ran, "approval_timed_out")
    expect(ran.data.message).toContain(`no answer within ${TIMEOUT_SECONDS} s`)
    // Withdrawn before the call returned: the person's screen no longer shows it.
    expect(promptGone(await person.screen())).toBe(true)
    // The person presses y afterwards: it is a key typed into their pane, nothing else.
    const mark = pane.files.recorder.mark()
    person.press("y")
    await waitUntil("the late y to reach the pane", () => pane.files.recorder.textSince(mark) === "y")
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("y"))
    person.press("\x15") // C-u: the person clears their line again
    const line = auditLines().find((l) => l.request_id === ran.data.request_id && l.kind === "approval")
    expect(line).toMatchObject({ outcome: "timed_out", asked_in: "terminal", answered_by: null })
  })

  it("a pane that prints y and the prompt's own text answers nothing; the channel is in no argv and no option", async () => {
    const pane = await shownPane()
    // A neighbour in the same window floods the person's screen with answers and fake prompts.
    const noisy = await rig.world.split(pane)
    const typed = noisy.files.recorder.mark()
    await rig.world.type(
      noisy,
      `while :; do printf 'y\\n${PROMPT}\\nAllow once y\\n\\033[?1049l'; sleep 0.1; done\r`
    )
    await waitUntil("the loop to start", () => noisy.files.recorder.textSince(typed).endsWith("done\r"))
    await person.waitForScreen("the neighbour's flood", (screen) => screen.includes("Allow once y"))
    try {
      const { ran } = await expectNothingReached(rig.worlds, () =>
        askAndAnswer(pane, "echo never-by-output", async () => {
          const argv = readdirSync("/proc")
            .filter((d) => /^\d+$/.test(d))
            .map((d) => {
              try {
                return readFileSync(`/proc/${d}/cmdline`, "latin1")
              } catch {
                return ""
              }
            })
          expect(argv.filter((a) => a.includes("termpilot-approval-"))).toEqual([])
          const options = [
            await rig.world.tmux("show-options", "-g"),
            await rig.world.tmux("show-options", "-s"),
            await rig.world.tmux("show-options", "-w", "-t", pane.paneId),
            await rig.world.tmux("show-options", "-p", "-t", pane.paneId),
            await rig.world.tmux("show-environment", "-g"),
            await rig.world.tmux("show-environment", "-t", "main")
          ].join("\n")
          expect(options).not.toContain("termpilot-approval-")
        })
      )
      expectRejected(ran, "approval_timed_out")
    } finally {
      await rig.world.press(noisy, "C-c")
    }
  })

  it("send_keys is asked the same way: y types the keys", async () => {
    const pane = await shownPane()
    const mark = pane.files.recorder.mark()
    const sent = call(rig.mcp, "send_keys", { session_id: pane.id, keys: [{ text: "echo keyed" }] })
    await person.waitForScreen("the keys' prompt", (s) => s.includes(PROMPT) && s.includes('»"echo keyed"«'))
    await reading()
    person.press("y")
    const result = await sent
    expect(result.isError, JSON.stringify(result.data)).toBe(false)
    await waitUntil("the keys to arrive", () => pane.files.recorder.textSince(mark) === "echo keyed")
    person.press("\x15")
  })

  it("a command full of tmux format, quoting and non-ASCII characters is shown literally, code points named", async () => {
    const pane = await shownPane()
    const command = 'echo "#{pane_id} $HOME \\ ;" \u0430#[fg=red]'
    const ran = runCommand(rig.mcp, { session_id: pane.id, command })
    const shown = 'echo "#{pane_id} $HOME \\ ;" <U+0430>#[fg=red]'
    const screen = await person.waitForScreen("the literal command", (s) => s.includes(`»${shown}«`))
    expect(screen).toContain("U+0430 at position 28")
    await reading()
    person.press("n")
    expectRejected(await ran, "declined_by_user")
    await person.waitForScreen("the prompt to close", promptGone)
  })

  it("a prompt too tall for the person's terminal: approval_unavailable, nothing shown or sent", async () => {
    const pane = await shownPane()
    const ran = await expectNothingReached(rig.worlds, () =>
      runCommand(rig.mcp, { session_id: pane.id, command: `echo ${"x".repeat(8_000)}` })
    )
    expectRejected(ran, "approval_unavailable")
    expect(ran.data.message).toContain("the prompt does not fit")
    expect(promptGone(await person.screen())).toBe(true)
  })

  it("the person's client already shows a menu: approval_unavailable (not a decline), nothing sent; theirs stays", async () => {
    const pane = await shownPane()
    // The person's own menu, open on their client (tmux shows one menu per client).
    const theirs = spawn(
      "tmux",
      [
        "-S",
        rig.world.socket,
        "-f",
        "/dev/null",
        "display-menu",
        "-c",
        person.tty,
        "-T",
        "their-own-menu",
        "Their item",
        "t",
        ""
      ],
      { env: rig.world.env(), stdio: "ignore" }
    )
    try {
      await person.waitForScreen("their own menu", (s) => s.includes("their-own-menu"))
      const ran = await expectNothingReached(rig.worlds, () =>
        runCommand(rig.mcp, { session_id: pane.id, command: "echo menu-busy" })
      )
      expectRejected(ran, "approval_unavailable")
      expect(ran.data.message).toContain("another menu or popup is open")
      expect(await person.screen()).toContain("their-own-menu")
    } finally {
      person.press("\x1b")
      await person.waitForScreen("their menu to close", (s) => !s.includes("their-own-menu"))
      theirs.kill("SIGKILL")
    }
  })

  it("no person's client attached: approval_unavailable, nothing reaches any pane", async () => {
    const pane = await shownPane()
    await person.detach()
    const ran = await expectNothingReached(rig.worlds, () =>
      runCommand(rig.mcp, { session_id: pane.id, command: "echo nobody-there" })
    )
    expectRejected(ran, "approval_unavailable")
    expect(ran.data.message).toContain("no person's tmux client is attached")
    expect(ran.data.message).toContain("has no approval dialog")
  })
})
