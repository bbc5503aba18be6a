/**
 * CommandFigures — list_commands and read_command_output (issue 28): listing 200 commands of one
 * session; reading 200 lines of a 100,000-line output from its tail and from its head, each answer
 * checked line for line against what `seq` printed; and, where the server keeps the command log
 * itself (tmux), its idle RSS with 100 panes × 200 commands next to the same server's before any.
 * Every command is typed by the person after the server watches its session (tmux lists only the
 * commands it saw start), 200 of them pasted as one block of lines.
 */
import { sharedTargets } from "./Backends.js"
import { type Base, type FigureOptions, sleep, timed, withServer, withWorld } from "./Harness.js"
import { callOk, rssMb, type Started } from "./Spawned.js"
import { atMost, info, type Row, summarize } from "./Stats.js"

/** list_commands' most per call, and the entries tmux keeps per pane. */
const LISTED = 200
const OUTPUT_LINES = 100_000
const READ_LINES = 200
const PANES = 100

/** The fields of a list_commands entry the figures check. */
interface Listed {
  readonly command_id: string
  readonly exit_code: number | null
  readonly status: string
  readonly output_available: boolean
  readonly output_unavailable_reason: string | null
}

/** `count` lines of `true`, pasted at once: one prompt each. */
const trues = (count: number) => Array.from({ length: count }, () => "true").join("\n")

/** Lines `first`…`last` as `seq` prints them, joined with \n. */
const numbers = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => String(first + i)).join("\n")

const listCommands = async (server: Started, sessionId: string, limit: number, since?: string) => {
  const args = { session_id: sessionId, limit, ...(since === undefined ? {} : { since }) }
  return (await callOk(server.client, "list_commands", args)).commands as ReadonlyArray<Listed>
}

/** The newest command listed now, to pass as `since`; undefined when none is. */
const newestId = async (server: Started, sessionId: string) =>
  (await listCommands(server, sessionId, 1)).at(-1)?.command_id

/** Polls list_commands (bounded) until `count` commands newer than `since` are listed, the newest finished. */
const untilListed = async (server: Started, sessionId: string, count: number, since?: string) => {
  const deadline = Date.now() + 120_000
  for (;;) {
    const commands = await listCommands(server, sessionId, count, since)
    if (commands.length === count && commands.at(-1)?.status === "finished") return commands
    if (Date.now() > deadline)
      throw new Error(
        `list_commands ${sessionId}, limit ${count}: ${commands.length} listed after 120 s, the newest ${JSON.stringify(commands.at(-1))}`
      )
    await sleep(50)
  }
}

/** The entries that did not finish with 0 or whose output list_commands says cannot be read. */
const wrongOf = (commands: ReadonlyArray<Listed>) =>
  commands.filter((c) => c.status !== "finished" || c.exit_code !== 0 || !c.output_available)

/** untilListed, failing the bench on a wrong entry (with the entry as list_commands gave it). */
const listedRight = async (server: Started, sessionId: string, count: number, since?: string) => {
  const commands = await untilListed(server, sessionId, count, since)
  const [wrong] = wrongOf(commands)
  if (wrong !== undefined)
    throw new Error(`list_commands ${sessionId}, limit ${count}: an entry ${JSON.stringify(wrong)}`)
  return commands
}

/** list_commands of 200 entries in a session that ran 200 commands. */
const list200 = (o: FigureOptions, base: Base) =>
  withWorld(o, 1, 1000, (world) =>
    withServer(o, world, async (server) => {
      const id = world.sessionIds[0]!
      const since = await newestId(server, id)
      await world.runAsUser(id, trues(LISTED))
      await listedRight(server, id, LISTED, since)
      const times = await timed(async () => {
        const listed = (await listCommands(server, id, LISTED)).length
        if (listed !== LISTED) throw new Error(`list_commands ${id}: ${listed} of ${LISTED} listed`)
      }, o.runs)
      const figure = { ...base, figure: `list_commands, ${LISTED} entries`, unit: "ms" as const }
      const target = o.backend.targets.listCommands200Ms
      return target === undefined ? info(figure, times) : atMost(figure, times, target)
    })
  )

/**
 * read_command_output of 200 lines of `seq 1 100000`'s output, from its tail and from its head, in
 * the world OutputFigures reads 100,000 lines of scrollback in: its second session (tmux's first
 * pane is respawned after history-limit is raised, and a respawn keeps the pane's old limit).
 */
const deepOutput = (o: FigureOptions, base: Base) =>
  withWorld(o, 2, OUTPUT_LINES + 10_000, (world) =>
    withServer(o, world, async (server) => {
      const id = world.sessionIds[1]!
      const since = await newestId(server, id)
      o.log(`    seq 1 ${OUTPUT_LINES}, typed while the server watches`)
      await world.runAsUser(id, `seq 1 ${OUTPUT_LINES}`)
      const [command] = await listedRight(server, id, 1, since)
      const expected = {
        tail: {
          output: numbers(OUTPUT_LINES - READ_LINES + 1, OUTPUT_LINES),
          first: OUTPUT_LINES - READ_LINES
        },
        head: { output: numbers(1, READ_LINES), first: 0 }
      }
      const read = (from: "tail" | "head") => async () => {
        const data = await callOk(server.client, "read_command_output", {
          session_id: id,
          command_id: command!.command_id,
          max_lines: READ_LINES,
          from
        })
        const want = expected[from]
        if (
          data.output !== want.output ||
          data.first_line !== want.first ||
          data.total_output_lines !== OUTPUT_LINES
        ) {
          const output = String(data.output)
          const { output: _, ...rest } = data
          throw new Error(
            `read_command_output from ${from}: ${JSON.stringify(rest)}, output starts ${JSON.stringify(output.slice(0, 40))}, ends ${JSON.stringify(output.slice(-40))}`
          )
        }
      }
      const row = (from: "tail" | "head", times: ReadonlyArray<number>) =>
        atMost(
          {
            ...base,
            figure: `read_command_output ${READ_LINES} lines of a 100,000-line output, from the ${from}`,
            unit: "ms"
          },
          times,
          o.backend.targets.deepReadMs
        )
      const tail = await timed(read("tail"), o.runs)
      const head = await timed(read("head"), o.runs)
      return [row("tail", tail), row("head", head)]
    })
  )

/**
 * Idle RSS of a server watching 100 panes, before any command and once each pane ran 200 (its
 * log full), the panes typed in ten at a time: each run a fresh server in the same world, 1 s idle
 * before each reading, as the start-up figures' "idle RSS after 100 mixed calls". An entry whose
 * output list_commands says cannot be read fails the row (counted in its note), not the run.
 */
const commandLogRss = (o: FigureOptions, base: Base) =>
  withWorld(o, PANES, 1000, async (world) => {
    const before: Array<number> = []
    const after: Array<number> = []
    const wrong: Array<Listed> = []
    const runs = Math.max(3, Math.round(o.runs / 10))
    for (let run = 0; run < runs; run++) {
      await withServer(o, world, async (server) => {
        const since = new Map<string, string | undefined>()
        for (const id of world.sessionIds) since.set(id, await newestId(server, id))
        await sleep(1000)
        before.push(rssMb(server.pid))
        o.log(`    run ${run + 1}/${runs}: ${PANES} panes × ${LISTED} commands`)
        for (let i = 0; i < world.sessionIds.length; i += 10)
          await Promise.all(world.sessionIds.slice(i, i + 10).map((id) => world.runAsUser(id, trues(LISTED))))
        for (const id of world.sessionIds)
          wrong.push(...wrongOf(await untilListed(server, id, LISTED, since.get(id))))
        await sleep(1000)
        after.push(rssMb(server.pid))
      })
    }
    const growth = summarize(after.map((mb, i) => mb - before[i]!)).median
    const row = atMost(
      { ...base, figure: `idle RSS, ${PANES} panes × ${LISTED} commands`, unit: "MB" },
      after,
      sharedTargets.idleRssMb
    )
    const grew = `+${growth.toFixed(1)} MB over the same server before the commands (median)`
    const listed = runs * PANES * LISTED
    return [
      info({ ...base, figure: `idle RSS, ${PANES} panes watched, before any command`, unit: "MB" }, before),
      wrong.length === 0
        ? { ...row, note: grew }
        : {
            ...row,
            ok: false,
            note: `${grew}; WRONG: ${wrong.length} of ${listed} entries listed unreadable or not exit 0, e.g. ${JSON.stringify(wrong[0]!.output_unavailable_reason)}`
          }
    ]
  })

export const commandFigures = async (o: FigureOptions, base: Base): Promise<ReadonlyArray<Row>> => {
  o.log(`    list_commands, ${LISTED} entries`)
  const rows: Array<Row> = [await list200(o, base)]
  o.log("    read_command_output of a 100,000-line output")
  rows.push(...(await deepOutput(o, base)))
  if (o.backend.commandLogInServer === true) {
    o.log(`    idle RSS with ${PANES} panes × ${LISTED} commands`)
    rows.push(...(await commandLogRss(o, base)))
  }
  return rows
}
