/**
 * OutputFigures — the figures that depend on how much text a session holds: read_terminal of
 * 200 lines on a fresh screen and after 100,000 lines of scrollback, and run_command of 5 MB and
 * 50 MB of output (the returned tail must be the output's real last line; peak RSS of a server
 * that ran only that command, and the CPU it spent on it) against the backend's floor where it has
 * one: a bare client of the
 * terminal reading the same output, in the same world, before the server is started.
 */
import { sharedTargets } from "./Backends.js"
import { type Base, type FigureOptions, timed, withServer, withWorld } from "./Harness.js"
import { callOk, cpuMs, peakRssMb } from "./Spawned.js"
import { atMost, info, type Row } from "./Stats.js"

/** read_terminal 200 lines: a fresh screen vs a session with 100,000 lines of scrollback. */
const readTerminal = (o: FigureOptions, base: Base) =>
  withWorld(o, 2, 110_000, async (world) => {
    const [fresh, deep] = world.sessionIds as [string, string]
    await world.runAsUser(fresh, "seq 1 20")
    o.log("    filling 100,000 lines of scrollback")
    await world.runAsUser(deep, "seq 1 100000")
    return withServer(o, world, async (server) => {
      const read = (id: string, last: string) => async () => {
        const data = await callOk(server.client, "read_terminal", { session_id: id, max_lines: 200 })
        if (!String(data.content).includes(last)) throw new Error(`read_terminal ${id}: no ${last}`)
      }
      const freshTimes = await timed(read(fresh, "20"), o.runs)
      const deepTimes = await timed(read(deep, "100000"), o.runs)
      const freshRow = atMost(
        { ...base, figure: "read_terminal 200 lines, fresh screen", unit: "ms" },
        freshTimes,
        8
      )
      const deepRow = atMost(
        { ...base, figure: "read_terminal 200 lines, 100,000-line scrollback", unit: "ms" },
        deepTimes,
        o.backend.targets.deepReadMs
      )
      const ratio = deepRow.median / freshRow.median
      const ratioRow: Row = {
        ...base,
        figure: "read_terminal: 100,000-line scrollback ÷ fresh screen",
        unit: "×",
        runs: o.runs,
        median: ratio,
        p95: Number.NaN,
        target: "≤ 1.5 ×",
        ok: ratio <= 1.5
      }
      return [freshRow, deepRow, ratioRow]
    })
  })

/** `bytes` of output in 100-column lines, numbered so the tail can be checked. */
const bigOutput = (lines: number) => `seq -f '%098.0f' 1 ${lines}`

const largeOutput = async (o: FigureOptions, base: Base, mb: number, runs: number) => {
  const lines = (mb * 1_000_000) / 100
  const expectedLast = String(lines).padStart(98, "0")
  const peaks: Array<number> = []
  const times: Array<number> = []
  const cpu: Array<number> = []
  const floors: Array<number> = []
  /** What the first run whose answer was not the output's real end returned, for the note. */
  let wrongTail: string | undefined
  for (let i = 0; i < runs; i++) {
    await withWorld(o, 1, 10_000, async (world) => {
      if (world.bareOutputFloor !== undefined)
        floors.push(await world.bareOutputFloor(world.sessionIds[0]!, bigOutput(lines)))
      await withServer(o, world, async (server) => {
        const t0 = performance.now()
        const cpu0 = cpuMs(server.pid)
        const data = await callOk(server.client, "run_command", {
          session_id: world.sessionIds[0]!,
          command: bigOutput(lines),
          timeout_seconds: 300
        })
        times.push(performance.now() - t0)
        cpu.push(cpuMs(server.pid) - cpu0)
        const output = String(data.output ?? "")
        const last = output.trimEnd().split("\n").pop()
        if ((data.exit_code !== 0 || last !== expectedLast) && wrongTail === undefined)
          wrongTail = `WRONG TAIL: status ${String(data.status)}, exit_code ${String(data.exit_code)}, last line ${JSON.stringify(last?.slice(-40))}`
        peaks.push(peakRssMb(server.pid))
      })
    })
  }
  const peak = atMost(
    { ...base, figure: `${mb} MB of command output: peak RSS`, unit: "MB" },
    peaks,
    sharedTargets.peakRssMb
  )
  const endToEnd = info(
    { ...base, figure: `${mb} MB of command output: run_command end to end`, unit: "ms" },
    times
  )
  const rows: Array<Row> = [
    { ...peak, ok: peak.ok === true && wrongTail === undefined, note: wrongTail ?? "tail correct" },
    endToEnd,
    info({ ...base, figure: `${mb} MB of command output: server CPU during run_command`, unit: "ms" }, cpu)
  ]
  if (floors.length > 0) {
    const floor = info(
      {
        ...base,
        figure: `${mb} MB of command output: bare control-mode client, send → end mark`,
        unit: "ms"
      },
      floors
    )
    const ratio = endToEnd.median / floor.median
    rows.push(floor, {
      ...base,
      figure: `${mb} MB of command output: run_command ÷ bare control-mode client`,
      unit: "×",
      runs,
      median: ratio,
      p95: Number.NaN,
      target: `≤ ${sharedTargets.bigOutputRatio} ×`,
      ok: ratio <= sharedTargets.bigOutputRatio
    })
  }
  return rows
}

/** read_terminal ("read") and run_command of 5 MB and 50 MB ("big"; BENCH_50MB_RUNS=0 skips 50 MB). */
export const outputFigures = async (o: FigureOptions, base: Base): Promise<ReadonlyArray<Row>> => {
  const rows: Array<Row> = []
  if (o.figures.has("read")) {
    o.log("  read_terminal")
    rows.push(...(await readTerminal(o, base)))
  }
  if (o.figures.has("big")) {
    o.log("  large outputs")
    rows.push(...(await largeOutput(o, base, 5, Math.max(3, Math.round(o.runs / 10)))))
    const runs50 = Number(process.env.BENCH_50MB_RUNS ?? 2)
    if (runs50 > 0) rows.push(...(await largeOutput(o, base, 50, runs50)))
  }
  return rows
}
