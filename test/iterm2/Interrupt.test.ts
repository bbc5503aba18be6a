/**
 * Terminal.interrupt on the iTerm2 backend against the protocol-level fake (real bash in PTYs):
 * one ETX, broadcast suppressed, to that session only, and only while iTerm2 shows our command
 * running; every other state answers or fails without sending anything.
 */
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Terminal } from "../../src/services/Terminal.js"
import { until } from "../robustness/support.js"
import { waitForKeyWait } from "../support/KeyWait.js"
import { type BackendRig, openBackendRig } from "./BackendRig.js"

let rig: BackendRig

beforeAll(async () => {
  rig = await openBackendRig()
})
afterAll(async () => {
  await rig?.close()
})

const submit = (sessionId: string, command: string) =>
  rig.run(Effect.flatMap(Terminal, (t) => t.submit(sessionId, command)))
const interrupt = (sessionId: string, promptId: string) =>
  Effect.flatMap(Terminal, (t) => t.interrupt(sessionId, promptId))

/** A new session running `command` (typed by TermPilot), once iTerm2 shows it RUNNING. */
const running = async (command: string) => {
  const { sessionId } = await rig.world.createWindow()
  await rig.observe(sessionId)
  const { promptId } = await submit(sessionId, command)
  expect(promptId).not.toBeNull()
  await rig.world.waitFor(sessionId, (shell) => shell.prompts.byId(promptId!)?.outputStart != null)
  return { sessionId, promptId: promptId! }
}

/** Ledger entries recorded from `mark` on. */
const sentSince = (mark: number) => rig.world.ledger.all().slice(mark)

describe("Terminal.interrupt (iTerm2)", () => {
  it("sends one ETX, broadcast suppressed, to that session only; sleep ends with 130", async () => {
    const bystander = (await rig.world.createWindow()).sessionId
    const { sessionId, promptId } = await running("sleep 100")
    // iTerm2 shows RUNNING from the command's start on; wait until sleep owns the terminal too.
    await until("sleep in the foreground", () => rig.world.shell(sessionId).jobName === "sleep")
    const mark = rig.world.ledger.size

    expect(await rig.run(interrupt(sessionId, promptId))).toBe("sent")

    expect(await rig.commandEnd(sessionId, promptId)).toBe(130)
    expect(sentSince(mark).map((e) => [e.session, e.text, e.suppress_broadcast])).toEqual([
      [sessionId, "\x03", true]
    ])
    expect(rig.world.ledger.forSession(bystander)).toEqual([])
  })

  it("sends one ETX to a program that ignores SIGINT, which keeps running", async () => {
    const { sessionId, promptId } = await running(
      `bash -c 'trap "" INT; echo armed; read -r x; echo "got:$x"; sleep 100'`
    )
    // iTerm2 shows RUNNING from the command's start on; the trap is set once "armed" is printed.
    await rig.world.waitFor(sessionId, (shell) => shell.screen.screenText().includes("\narmed"))
    const mark = rig.world.ledger.size

    expect(await rig.run(interrupt(sessionId, promptId))).toBe("sent")

    // Input reaches the terminal in order: once `read` has this line, the ETX was already handled.
    rig.world.type(sessionId, "after\r")
    await rig.world.waitFor(sessionId, (shell) => shell.screen.screenText().includes("got:after"))
    expect(sentSince(mark).map((e) => e.text)).toEqual(["\x03"])
    const prompt = rig.world.shell(sessionId).prompts.last()
    expect([prompt?.id, prompt?.exitCode]).toEqual([promptId, null])
  })

  it("answers ended for a finished command and sends nothing", async () => {
    const { sessionId } = await rig.world.createWindow()
    const { promptId } = await submit(sessionId, "true")
    await rig.world.waitFor(sessionId, (shell) => shell.atPrompt() && shell.prompts.last()?.id !== promptId)
    const mark = rig.world.ledger.size

    expect(await rig.run(interrupt(sessionId, promptId!))).toBe("ended")
    expect(sentSince(mark)).toEqual([])
  })

  it("answers ended when iTerm2 shows the same prompt FINISHED (no newer prompt yet)", async () => {
    // The program itself writes the command-end mark, so iTerm2 believes the command is over.
    const { sessionId, promptId } = await running(`printf '\\033]133;D;5\\007'; sleep 100`)
    await rig.world.waitFor(sessionId, (shell) => shell.prompts.byId(promptId)?.exitCode === 5)
    const mark = rig.world.ledger.size

    expect(await rig.run(interrupt(sessionId, promptId))).toBe("ended")
    expect(sentSince(mark)).toEqual([])
  })

  it("answers not_started while the prompt is still being edited", async () => {
    const { sessionId } = await rig.world.createWindow()
    rig.world.type(sessionId, "echo typed-not-entered")
    await rig.world.waitFor(sessionId, (shell) => shell.screen.screenText().includes("typed-not-entered"))
    const promptId = rig.world.lastPromptId(sessionId)!
    const mark = rig.world.ledger.size

    expect(await rig.run(interrupt(sessionId, promptId))).toBe("not_started")
    expect(sentSince(mark)).toEqual([])
  })

  it("fails session_not_found for a closed session and sends nothing", async () => {
    const { sessionId, promptId } = await running("sleep 100")
    await rig.world.closeSession(sessionId)
    const mark = rig.world.ledger.size

    expect((await rig.failure(interrupt(sessionId, promptId))).code).toBe("session_not_found")
    expect(sentSince(mark)).toEqual([])
  })

  it("fails command_not_running without shell integration and sends nothing", async () => {
    const { sessionId } = await rig.world.createWindow({ integration: false })
    const mark = rig.world.ledger.size

    const error = await rig.failure(interrupt(sessionId, randomUUID().toUpperCase()))
    expect(error.code).toBe("command_not_running")
    expect(sentSince(mark)).toEqual([])
  })

  it("reports a send iTerm2 did not confirm as possibly sent", async () => {
    const { sessionId, promptId } = await running("sleep 100")
    rig.server.faultKind("send_text_request", { error: "boom" })
    try {
      const error = await rig.failure(interrupt(sessionId, promptId))
      expect([error._tag, error.code]).toEqual(["SendOutcomeUnknown", "iterm2_unavailable"])
    } finally {
      rig.server.clearFaults()
    }
  })

  it("race: the command ends at the shell inside the transaction; one ETX, the command's own exit", async () => {
    const flag = join(rig.world.home, `done-${randomUUID()}`)
    const { sessionId, promptId } = await running(
      `bash -c 'while [ ! -e ${flag} ]; do sleep 0.02; done; exit 7'`
    )
    const shell = rig.world.shell(sessionId)
    // Inside the interrupt's transaction iTerm2 processes no output: the command ends and the shell
    // draws its next prompt, but iTerm2 still shows the command RUNNING when it checks.
    rig.world.transactions.duringNextBegin(async () => {
      writeFileSync(flag, "")
      await shell.waitUntil(() => shell.heldOutput().includes("\x1b]133;B\x07"), 10_000, "the next prompt")
      // Past readline's window between drawing the prompt and waiting for a key (see KeyWait).
      await waitForKeyWait(shell.pid)
    })
    const mark = rig.world.ledger.size

    expect(await rig.run(interrupt(sessionId, promptId))).toBe("sent")

    // The command ended by itself (7, not 130): the ETX reached the idle shell, which stays usable.
    expect(await rig.commandEnd(sessionId, promptId)).toBe(7)
    expect(sentSince(mark).map((e) => e.text)).toEqual(["\x03"])
    // The shell at its next prompt took the ETX as Ctrl-C there: "^C" and a fresh prompt.
    await rig.world.waitFor(sessionId, (s) => s.atPrompt() && /\$ \^C\ntp:/.test(s.screen.screenText()))
    expect(await rig.run(Effect.flatMap(Terminal, (t) => t.readiness(sessionId)))).toBe("ready")
  })
})
