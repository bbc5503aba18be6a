/**
 * End to end over real tmux: the person types into many panes of one session at once, with their
 * own client attached in a real pty (the bench's `idle RSS, 100 panes × 200 commands` setup,
 * smaller), so TermPilot's one control client for the session carries all their output
 * interleaved. tmux then sometimes streams a pane's output before the reply to a grid check asked
 * earlier (another pane's older output still queued ahead of the reply); such a reply must not
 * count as a wrong prediction. Every command is listed, finished with 0, with its output
 * available, and one read back is exactly its (empty) output.
 */
import * as pty from "node-pty"
import { afterAll, beforeAll, expect, it } from "vitest"
import { typed } from "../support/E2eHelpers.js"
import { waitUntil } from "../support/tmux/Recorder.js"
import { MAIN_SESSION, openTmuxRig, type RigPane, type TmuxRig } from "../support/tmux/TmuxRig.js"

const PANES = 10
const ROUNDS = 3
const COMMANDS = 50

interface Listed {
  readonly command_id: string
  readonly exit_code: number | null
  readonly status: string
  readonly output_available: boolean
  readonly output_unavailable_reason: string | null
}

let rig: TmuxRig
let person: pty.IPty | undefined
const panes: Array<RigPane> = []

beforeAll(async () => {
  rig = await openTmuxRig()
  panes.push(await rig.pane())
  person = pty.spawn("tmux", ["-S", rig.world.socket, "-f", "/dev/null", "attach", "-t", MAIN_SESSION], {
    name: "xterm-256color",
    cols: 160,
    rows: 50,
    env: rig.world.env()
  })
  person.onData(() => undefined)
  const people = async () =>
    (await rig.world.tmux("list-clients", "-F", "#{client_control_mode}")).split("\n")
  await waitUntil("the person's client", async () => (await people()).includes("0"))
  for (let i = 1; i < PANES; i++) panes.push(await rig.pane())
}, 60_000)

afterAll(async () => {
  if (person !== undefined) {
    await rig?.world.tmux("detach-client", "-a").catch(() => undefined)
    person.kill()
  }
  await rig?.close()
})

const listCommands = async (pane: RigPane) => {
  const result = await typed<{ commands: ReadonlyArray<Listed> }>(rig.mcp, "list_commands", {
    session_id: pane.id,
    limit: 200
  })
  expect(result.isError, JSON.stringify(result.data)).toBe(false)
  return result.data.commands
}

it("commands typed into many panes of one session at once all keep their output", async () => {
  const block = `${Array.from({ length: COMMANDS }, () => "true").join("\n")}\n`
  for (let round = 1; round <= ROUNDS; round++) {
    const prompts = panes.map((pane) => pane.files.prompts())
    // Each pane gets its block of lines in one send-keys; all panes at once.
    await Promise.all(panes.map((pane) => rig.world.type(pane, block)))
    await waitUntil(
      `round ${round}: ${COMMANDS} prompts in each of ${PANES} panes`,
      () => panes.every((pane, i) => pane.files.prompts() >= prompts[i]! + COMMANDS),
      60_000
    )
    for (const pane of panes) {
      const count = round * COMMANDS
      let listed: ReadonlyArray<Listed> = []
      await waitUntil(`${pane.paneId}: ${count} finished entries`, async () => {
        listed = await listCommands(pane)
        return listed.length === count && listed.at(-1)?.status === "finished"
      })
      const wrong = listed.filter((e) => e.status !== "finished" || e.exit_code !== 0 || !e.output_available)
      const what = `round ${round}, ${pane.paneId}: ${wrong.length} of ${count} wrong, e.g. ${JSON.stringify(wrong[0])}`
      expect(wrong, what).toEqual([])
    }
  }
  for (const pane of panes) {
    const newest = (await listCommands(pane)).at(-1)!
    const read = await typed<{ output: string; total_output_lines: number }>(rig.mcp, "read_command_output", {
      session_id: pane.id,
      command_id: newest.command_id
    })
    expect(read.isError, JSON.stringify(read.data)).toBe(false)
    expect(read.data).toMatchObject({ output: "", total_output_lines: 0 })
  }
}, 180_000)
