/**
 * End to end over real tmux, real bash and a real sshd on 127.0.0.1 (test/support/Sshd.ts): a
 * TermPilot command whose output replays recordings of real, authentic shell-integration marks
 * (real tokens, real prompt numbers, recorded with `pipe-pane`) and then sleeps, prints a marker and
 * exits 3 is never ended by them: status completed, exit 3, the output whole up to the marker, no
 * earlier than the sleep. Recorded on a local pane and on a pane ssh'd to the host: this pane's own
 * earlier prompts and the prompt block the command is typed at, another pane's, shells of this pane
 * that went away with their prompt open (an inner bash left with Ctrl-D, ssh sessions left with
 * Ctrl-D or dropped), sessions left with `exit`, and shells TermPilot never saw (recorded before it
 * started); printed by `cat` and in 1-byte and 7-byte writes. Before commands were bound to the shell
 * and prompt they were typed at (PaneStream.commandTyped), the marks of shells gone with their prompt
 * open and of never-seen shells counted as "forward": their A cut the output and their B ended the
 * command as "a new prompt without an exit status"; a B, C, D;0 of one ended it with exit 0.
 * Also: a pane that was already ssh'd when TermPilot started, whose ssh is killed while a
 * TermPilot command runs there, reports the shell gone (session_lost, transport_exit_code 255).
 */
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bashSnippet } from "../../src/shell-integration/BashSnippet.js"
import { commandResult, runCommand, waitForReadiness, waitForStart } from "../support/E2eHelpers.js"
import { type RemoteHost, startRemoteHost } from "../support/Sshd.js"
import { openTmuxRig, type RigPane, settle, type TmuxRig } from "../support/tmux/TmuxRig.js"
import { TmuxWorld, type WorldPane } from "../support/tmux/TmuxWorld.js"

let rig: TmuxRig
let remote: RemoteHost
let world: TmuxWorld

/** Panes opened, and recordings made, before TermPilot started: the shells in them it never saw. */
let earlyLocal: WorldPane
let earlyRemote: WorldPane
let earlySsh: WorldPane
const unseenInner: Array<string> = []
const unseenRemote: Array<string> = []

const PRINTERS = ["cat", "split1", "split7"] as const
type Printer = (typeof PRINTERS)[number]

/** The pane's raw output (marks and all) while `during` runs, as `pipe-pane` wrote it. */
const recordRaw = async (pane: WorldPane, during: () => Promise<void>): Promise<string> => {
  const file = join(world.root, `raw-${pane.paneId.slice(1)}-${Date.now()}.log`)
  await world.tmux("pipe-pane", "-o", "-t", pane.paneId, `cat >> '${file}'`)
  await during()
  await new Promise((resolve) => setTimeout(resolve, 200))
  await world.tmux("pipe-pane", "-t", pane.paneId)
  return readFileSync(file, "latin1")
}

const atPrompt = (prompt: string) => (screen: string) => screen.endsWith(prompt)

/** An inner bash with the snippet (TMUX set: it announces its own token in this pane), one command, then `leave`. */
const innerSession = (pane: WorldPane, tag: string, leave: "exit" | "C-d") =>
  recordRaw(pane, async () => {
    await world.runAsUser(pane, "PS1='inner$ ' bash --norc --noprofile -i", atPrompt("inner$"))
    await world.runAsUser(pane, `source '${join(pane.files.dir, "termpilot.bash")}'`, atPrompt("inner$"))
    await world.runAsUser(pane, `echo ${tag}; (exit 5)`, atPrompt(`${tag}\ninner$`))
    await leaveShell(pane, leave)
  })

/** An ssh session (a remote shell with its own shell id), one command, then `leave`. */
const sshSession = (pane: WorldPane, tag: string, leave: "exit" | "C-d" | "drop") =>
  recordRaw(pane, async () => {
    await world.runAsUser(pane, remote.sshCommand, atPrompt("remote$"))
    await world.runAsUser(pane, `echo ${tag}; (exit 5)`, atPrompt(`${tag}\nremote$`))
    await leaveShell(pane, leave)
  })

const leaveShell = async (pane: WorldPane, leave: "exit" | "C-d" | "drop") => {
  if (leave === "exit") await world.type(pane, "exit\r")
  else if (leave === "C-d") await world.press(pane, "C-d")
  else process.kill(sshPid(pane), "SIGTERM")
  await world.waitForScreen(pane, atPrompt("tp$"))
}

/** The pane's ssh client: the child of the pane's shell. */
const sshPid = (pane: WorldPane): number => {
  const children = execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(pane.files.shellPid())], {
    encoding: "utf8"
  })
  const line = children.split("\n").find((l) => l.trim().endsWith(" ssh"))
  if (line === undefined) throw new Error(`no ssh under the pane's shell: ${children}`)
  return Number(line.trim().split(/\s+/)[0])
}

const rigPane = async (pane: WorldPane): Promise<RigPane> => ({ ...pane, id: await world.sessionId(pane) })

const ssh = async (pane: RigPane) => {
  await world.runAsUser(pane, remote.sshCommand, atPrompt("remote$"))
  await waitForReadiness(rig.mcp, pane.id, "ready")
}

beforeAll(async () => {
  remote = await startRemoteHost()
  writeFileSync(join(remote.home, ".tp.bash"), bashSnippet)
  remote.setRc("PS1='remote$ '\nsource ~/.tp.bash\n")
  writeFileSync(
    join(remote.home, "split.py"),
    'import sys,time\nd=open(sys.argv[1],"rb").read()\nn=int(sys.argv[2])\nfor i in range(0,len(d),n):\n sys.stdout.buffer.write(d[i:i+n]); sys.stdout.flush(); time.sleep(0.002)\n'
  )
  world = TmuxWorld.create()
  earlyLocal = await world.newSession("main")
  for (const printer of PRINTERS)
    unseenInner.push(await innerSession(earlyLocal, `unseen-${printer}`, "exit"))
  earlyRemote = await world.newWindow("main")
  for (const printer of PRINTERS)
    unseenRemote.push(await sshSession(earlyRemote, `unseen-${printer}`, "exit"))
  earlySsh = await world.newWindow("main")
  await world.runAsUser(earlySsh, remote.sshCommand, atPrompt("remote$"))
  rig = await openTmuxRig({ worlds: [world] })
}, 120_000)

afterAll(async () => {
  await rig?.close()
  await remote?.stop()
})

/** The shell line that prints `file`: at once, or in writes of 1 or 7 bytes 2 ms apart. */
const printLine = (file: string, printer: Printer) =>
  printer === "cat"
    ? `cat '${file}'`
    : `python3 '${join(remote.home, "split.py")}' '${file}' ${printer === "split1" ? 1 : 7}`

let corpora = 0

/** run_command printing `corpus` then `sleep 1; echo MARKER-END; (exit 3)`: completed, 3, whole, not early. */
const expectUnmoved = async (pane: RigPane, corpus: string, printer: Printer, label: string) => {
  expect(corpus, `${label}: a recording with real marks`).toMatch(/\x1b\]133;[ABCD][^\x07]*;tp=[0-9a-f]{16,}/)
  const file = join(world.root, `corpus-${corpora++}.bin`)
  writeFileSync(file, corpus, "latin1")
  await waitForReadiness(rig.mcp, pane.id, "ready", 15_000)
  const result = await runCommand(rig.mcp, {
    session_id: pane.id,
    command: `${printLine(file, printer)}; sleep 1; echo MARKER-END; (exit 3)`,
    timeout_seconds: 60
  })
  const where = `${label} (${printer})`
  expect(result.data, where).toMatchObject({ status: "completed", exit_code: 3, error_code: null })
  expect(result.data.output ?? "", where).toMatch(/MARKER-END$/)
  expect(result.data.duration_ms ?? 0, where).toBeGreaterThanOrEqual(1000)
}

describe("replays inside a TermPilot command on a local pane", () => {
  it("this pane's own prompts, the prompt block it is typed at, another pane's: never an end", async () => {
    const pane = await rig.pane()
    const other = await rig.pane()
    const own = await recordRaw(pane, async () => {
      await world.runAsUser(pane, "echo one; (exit 7)", atPrompt("one\ntp$"))
      await world.runAsUser(pane, "", atPrompt("tp$\ntp$"))
    })
    const theirs = await recordRaw(other, async () => {
      await world.runAsUser(other, "echo two; (exit 0)", atPrompt("two\ntp$"))
    })
    // Recorded up to the prompt the command is then typed at: its A and B come last.
    await expectUnmoved(pane, own, "cat", "the current prompt block")
    await expectUnmoved(pane, theirs, "cat", "another pane's marks")
    for (const printer of PRINTERS) await expectUnmoved(pane, own + theirs + own, printer, "own and other")
  })

  it("an inner shell of this pane gone with its prompt open (Ctrl-D), or with `exit`: never an end", async () => {
    const pane = await rig.pane()
    const open = await innerSession(pane, "left-open", "C-d")
    const exited = await innerSession(pane, "exited", "exit")
    for (const printer of PRINTERS) await expectUnmoved(pane, open, printer, "inner shell left with Ctrl-D")
    await expectUnmoved(pane, exited, "cat", "inner shell left with exit")
  })

  it("an inner shell TermPilot never saw (recorded before it started), in its own pane and another: never an end", async () => {
    const pane = await rigPane(earlyLocal)
    await settle(rig.mcp, pane, "ready")
    // One recording per printer: once printed, a shell is no longer unseen.
    for (const [i, printer] of PRINTERS.entries())
      await expectUnmoved(pane, unseenInner[i]!, printer, "an unseen inner shell")
    const other = await rig.pane()
    await expectUnmoved(other, unseenInner.join(""), "cat", "another pane's unseen inner shells")
  })
})

describe("replays inside a TermPilot command behind ssh", () => {
  it("earlier ssh sessions of this pane (left with exit, Ctrl-D, dropped), the current prompt block, another pane's", async () => {
    const pane = await rig.pane()
    const exited = await sshSession(pane, "exited", "exit")
    const open = await sshSession(pane, "left-open", "C-d")
    const dropped = await sshSession(pane, "dropped", "drop")
    const other = await rig.pane()
    await ssh(other)
    const theirs = await recordRaw(other, async () => {
      await world.runAsUser(other, "echo two; (exit 0)", atPrompt("two\nremote$"))
    })
    await ssh(pane)
    const current = await recordRaw(pane, async () => {
      await world.runAsUser(pane, "echo cur; (exit 7)", atPrompt("cur\nremote$"))
    })
    await expectUnmoved(pane, current, "cat", "the current remote prompt block")
    await expectUnmoved(pane, theirs, "cat", "another ssh'd pane's marks")
    await expectUnmoved(pane, exited, "cat", "an earlier session left with exit")
    for (const printer of PRINTERS) {
      await expectUnmoved(pane, open, printer, "an earlier session left with Ctrl-D")
      await expectUnmoved(pane, dropped, printer, "an earlier session whose ssh was killed")
    }
  })

  it("ssh sessions TermPilot never saw (recorded before it started): never an end", async () => {
    const pane = await rigPane(earlyRemote)
    await settle(rig.mcp, pane, "ready")
    await ssh(pane)
    for (const [i, printer] of PRINTERS.entries())
      await expectUnmoved(pane, unseenRemote[i]!, printer, "an unseen ssh session")
  })
})

describe("the shell a command runs in goes away", () => {
  it("ssh open before TermPilot started, killed mid-command: session_lost with ssh's 255, never completed", async () => {
    const pane = await rigPane(earlySsh)
    // The remote prompt was drawn before TermPilot watched: Enter once makes it verifiable.
    const screen = await world.screen(pane)
    await world.press(pane, "Enter")
    await world.waitForScreen(pane, (s) => s !== screen && s.endsWith("remote$"))
    await waitForReadiness(rig.mcp, pane.id, "ready")
    const started = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "sleep 30",
      timeout_seconds: 1
    })
    expect(started.data).toMatchObject({ status: "timed_out", sent: true })
    await waitForStart(rig.mcp, started.data.request_id)
    process.kill(sshPid(pane), "SIGTERM")
    const after = await commandResult(rig.mcp, { request_id: started.data.request_id, wait_seconds: 10 })
    expect(after.data).toMatchObject({
      status: "error",
      sent: true,
      error_code: "session_lost",
      exit_code: null,
      transport_exit_code: 255
    })
    expect(after.data.message).toMatch(/went away/)
    await waitForReadiness(rig.mcp, pane.id, "ready")
  })
})
