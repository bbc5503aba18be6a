/**
 * End to end over real tmux, bash, zsh and fish: panes whose prompts were drawn before TermPilot
 * started. An idle prompt is `ready` on the first list_sessions with no keypress (and takes a
 * command); text typed but not entered (also after a file drew a fake prompt and left a DCS open),
 * a program started earlier, a job left in the background, a program `exec`ed in the shell's place that shows the prompt's text,
 * a prompt that runs a command substitution and vim are never `ready`; the panes' recorders prove nothing reached any of them.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectRejected, listSessions, runCommand } from "../support/E2eHelpers.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"
import { TmuxWorld, type WorldPane } from "../support/tmux/TmuxWorld.js"

let world: TmuxWorld
let rig: TmuxRig
const panes: Record<string, WorldPane> = {}
const ids: Record<string, string> = {}
let firstListing: ReadonlyMap<string, string>

beforeAll(async () => {
  world = TmuxWorld.create()
  panes.bash = await world.newSession("main")
  panes.zsh = await world.newWindow("main", { shell: "zsh" })
  panes.fish = await world.newWindow("main", { shell: "fish" })
  panes.typed = await world.newWindow("main")
  panes.typedZsh = await world.newWindow("main", { shell: "zsh" })
  panes.typedFish = await world.newWindow("main", { shell: "fish" })
  panes.typedHome = await world.newWindow("main")
  panes.program = await world.newWindow("main")
  panes.background = await world.newWindow("main")
  panes.substituted = await world.newWindow("main")
  panes.vim = await world.newWindow("main")
  panes.forged = await world.newWindow("main")
  panes.execed = await world.newWindow("main")
  for (const name of ["typed", "typedZsh", "typedFish"]) {
    await world.type(panes[name]!, "echo half")
    await world.waitForScreen(panes[name]!, (s) => s.endsWith("tp$ echo half"))
  }
  // Typed, then the cursor moved back to the start of the line (C-a): the prompt looks bare up to the cursor.
  await world.type(panes.typedHome, "echo home\u0001")
  await world.waitForScreen(panes.typedHome, (s) => s.endsWith("tp$ echo home"))
  await world.runAsUser(panes.program, "sleep 600", () => true)
  await waitUntil("sleep to hold the terminal", () => panes.program!.files.foreground() === "sleep")
  // A job left running in the background: the prompt after it is idle, but the job may write unseen.
  await world.runAsUser(panes.background, "sleep 600 &", () => true)
  await waitUntil("the prompt after the job started", () => panes.background!.files.prompts() >= 1)
  const substituted = "PS1='$(printf tp)$ '"
  await world.runAsUser(panes.substituted, substituted, (s) => s.split("\n").length >= 2)
  await world.runAsUser(panes.vim, "vim -u NONE -N", (s) => s.includes("~"))
  await world.settled(panes.vim)
  // An attacker's file draws a fake prompt and leaves a DCS open, which would swallow the real prompt
  // and what the person types next: the snippet ends it before its D, so both show.
  const forged = join(world.root, "forged.txt")
  writeFileSync(forged, "tp$ \x1bPq")
  await world.runAsUser(panes.forged, `cat ${forged}`, () => true)
  await waitUntil("the prompt after cat", () => panes.forged!.files.prompts() >= 1)
  // Typed only once readline reads keys: typed earlier, the terminal would echo it before the prompt
  // (the screen would already end with it), and the prompt with its marks would come later, maybe
  // while TermPilot starts.
  await waitUntil("readline to read keys after cat", () => panes.forged!.files.lineEditing())
  await world.type(panes.forged, "echo half")
  await waitUntil("the typed text to arrive", () =>
    panes.forged!.files.recorder.textSince(0).endsWith("echo half")
  )
  await world.waitForScreen(panes.forged, (s) => s.endsWith("echo half"))
  // The shell replaced by a program (same pid) that shows the very prompt text and waits on stdin.
  const fake = join(world.root, "fake-prompt.txt")
  writeFileSync(fake, "tp$ ")
  await world.runAsUser(panes.execed, `exec cat ${fake} -`, () => true)
  await waitUntil("cat in the shell's place", () => panes.execed!.files.foreground() === "cat")
  await world.waitForScreen(panes.execed, (s) => s.endsWith(`exec cat ${fake} -\ntp$`))
  for (const [name, pane] of Object.entries(panes)) ids[name] = await world.sessionId(pane)
  rig = await openTmuxRig({ worlds: [world] })
  const all = await expectNothingReached([world], () => listSessions(rig.mcp), "the first list_sessions")
  firstListing = new Map(all.map((s) => [s.session_id, s.execution_readiness]))
})

afterAll(async () => {
  // The rig closes the world it was given; without one (the setup failed first), close it here.
  if (rig !== undefined) await rig.close()
  else await world?.close()
})

describe("prompts drawn before TermPilot started", () => {
  it("an idle bash, zsh or fish prompt is ready on the first list_sessions, with no keypress", () => {
    expect(firstListing.get(ids.bash!)).toBe("ready")
    expect(firstListing.get(ids.zsh!)).toBe("ready")
    expect(firstListing.get(ids.fish!)).toBe("ready")
  })

  it("text typed but not entered, even with the cursor moved back to the prompt, is never ready", () => {
    for (const name of ["typed", "typedZsh", "typedFish"])
      expect(firstListing.get(ids[name]!), name).toBe("input_pending")
    expect(firstListing.get(ids.typedHome!)).toBe("input_pending")
    // After a forged prompt and an unterminated DCS from a file, the real prompt and the typing show.
    expect(firstListing.get(ids.forged!)).toBe("input_pending")
  })

  it("a program started before is busy, vim interactive, a prompt it cannot expand unknown", () => {
    expect(firstListing.get(ids.program!)).toBe("busy")
    // A job in the background shares the terminal: the earlier prompt is not proved.
    expect(firstListing.get(ids.background!)).toBe("unknown")
    expect(firstListing.get(ids.vim!)).toBe("interactive")
    expect(firstListing.get(ids.substituted!)).toBe("unknown")
    // `exec cat` kept the shell's pid and printed the prompt's text: not that shell any more.
    expect(firstListing.get(ids.execed!)).toBe("unknown")
  })

  it("every pane that is not ready refuses run_command, and not one byte reaches any pane", async () => {
    for (const name of [
      "typed",
      "typedZsh",
      "typedFish",
      "typedHome",
      "forged",
      "program",
      "background",
      "substituted",
      "vim"
    ]) {
      const ran = await expectNothingReached(
        [world],
        () => runCommand(rig.mcp, { session_id: ids[name], command: "echo should-not-run" }),
        `run_command in ${name}`
      )
      expectRejected(ran, "session_not_ready")
    }
    expect(await world.screen(panes.typed!)).toMatch(/tp\$ echo half$/)
    for (const pane of Object.values(panes))
      expect(pane.files.executed()).not.toContain("echo should-not-run")
  })

  it("the idle prompts take a command: its output and exit code come back", async () => {
    for (const [name, command, exit] of [
      ["bash", "echo first-$((40+2)); (exit 3)", 3],
      ["zsh", "echo first-$((40+2)); (exit 3)", 3],
      ["fish", "echo first-(math 40 + 2); false", 1]
    ] as const) {
      const ran = await runCommand(rig.mcp, { session_id: ids[name], command })
      expect(ran.isError, JSON.stringify(ran.data)).toBe(false)
      expect(ran.data, name).toMatchObject({ status: "completed", exit_code: exit, output: "first-42" })
    }
  })
})
