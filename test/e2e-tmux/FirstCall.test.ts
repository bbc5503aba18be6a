/**
 * End to end over real tmux: the first tool call of a fresh TermPilot process gives the verdict
 * the listing gives, from the same proof (issue 28, point 5). Panes idle at a prompt drawn before
 * TermPilot started, in the session TermPilot's first control client attaches to and in another
 * one; each case starts a new TermPilot, as a client reusing a session id it got earlier or a
 * one-shot client (MCP Inspector's CLI mode) does. run_command as the very first call completes
 * (the panes' recorders show exactly the command and Enter reached that pane, nothing any other),
 * read_terminal as the first call says ready, and list_sessions names the local user of a prompt
 * whose RemoteHost it never saw.
 */
import { userInfo } from "node:os"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listSessions, readTerminal, runCommand } from "../support/E2eHelpers.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"
import { TmuxWorld, type WorldPane } from "../support/tmux/TmuxWorld.js"

let world: TmuxWorld
let rig: TmuxRig | undefined
/** `attached`: in the session TermPilot's first control client attaches to; `other`: in another. */
const panes: Record<"attached" | "other", WorldPane> = {} as never
const ids: Record<string, string> = {}

beforeAll(async () => {
  world = TmuxWorld.create()
  const main = await world.newSession("main")
  const second = await world.newSession("second")
  // TermPilot's first client attaches to the least recently active session (TmuxServer.open).
  const order = (await world.tmux("list-sessions", "-F", "#{session_activity} #{session_name}"))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split(" ") as [string, string])
    .sort((a, b) => Number(a[0]) - Number(b[0]))
  const firstAttached = order[0]![1]
  panes.attached = firstAttached === "main" ? main : second
  panes.other = firstAttached === "main" ? second : main
  for (const [name, pane] of Object.entries(panes)) ids[name] = await world.sessionId(pane)
})

afterAll(async () => {
  await rig?.closeTermPilot()
  await world?.close()
})

/** A new TermPilot process over the same panes (the previous one closed): nothing called yet. */
const freshTermPilot = async (): Promise<TmuxRig> => {
  await rig?.closeTermPilot()
  rig = await openTmuxRig({ worlds: [world] })
  return rig
}

/** Runs `command` in pane `name`; exactly the command and Enter reach it, nothing reaches the other. */
const runExactly = async (r: TmuxRig, name: "attached" | "other", command: string) => {
  const all = Object.values(panes)
  const marks = all.map((pane) => pane.files.recorder.mark())
  const ran = await runCommand(r.mcp, { session_id: ids[name], command })
  expect(ran.isError, JSON.stringify(ran.data)).toBe(false)
  expect(ran.data).toMatchObject({ status: "completed", exit_code: 3, output: "first-42" })
  all.forEach((pane, i) => {
    const typed = pane === panes[name] ? `${command}\r` : ""
    expect(JSON.stringify(pane.files.recorder.textSince(marks[i]!)), pane.paneId).toBe(JSON.stringify(typed))
  })
  expect(panes[name].files.executed().at(-1)).toBe(command)
}

describe("the first call of a fresh TermPilot gives the listing's verdict", () => {
  for (const name of ["other", "attached"] as const) {
    it(`run_command as the very first call runs in a pane of the ${name} session`, async () => {
      const r = await freshTermPilot()
      await runExactly(r, name, `echo first-$((40+2)); (exit 3) # ${name}`)
    })

    it(`read_terminal as the very first call says ready in the ${name} session, and the command then runs`, async () => {
      const r = await freshTermPilot()
      const read = await readTerminal(r.mcp, { session_id: ids[name], max_lines: 1 })
      expect(read.isError, JSON.stringify(read.data)).toBe(false)
      expect(read.data.execution_readiness).toBe("ready")
      await runExactly(r, name, `echo first-$((40+2)); (exit 3) # after read ${name}`)
    })
  }

  it("list_sessions as the first call: both ready, with the local user of each shell", async () => {
    const r = await freshTermPilot()
    const all = await listSessions(r.mcp)
    for (const name of ["attached", "other"]) {
      const listed = all.find((s) => s.session_id === ids[name])
      expect(listed, name).toMatchObject({ execution_readiness: "ready", username: userInfo().username })
    }
    await runExactly(r, "other", "echo first-$((40+2)); (exit 3) # after list")
  })
})
