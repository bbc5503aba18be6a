/**
 * WaitFigures — wait_for_output's latency: from the moment a line is printed in a session (the
 * shell's own clock, `date +%s%N` on the line itself) to the moment the client has the answer that
 * it matched. The wait is already running when the person (not TermPilot) runs the `echo`.
 */
import { performance } from "node:perf_hooks"
import { type Base, type FigureOptions, sleep, withServer, withWorld } from "./Harness.js"
import { callOk } from "./Spawned.js"
import { atMost, type Row } from "./Stats.js"

/** The target: one look every 100 ms, so about half that on average, plus a read and the answer. */
export const WAIT_MATCH_TARGET_MS = 150
/** How long the wait runs before the line is printed (it has started looking by then). */
const LEAD_MS = 300

/** Now on the wall clock, in milliseconds with sub-millisecond precision. */
const wallMs = () => performance.timeOrigin + performance.now()

export const waitFigures = (o: FigureOptions, base: Base): Promise<ReadonlyArray<Row>> =>
  withWorld(o, 1, 1000, (world) =>
    withServer(o, world, async (server) => {
      const sessionId = world.sessionIds[0]!
      const once = async () => {
        const waiting = callOk(server.client, "wait_for_output", {
          session_id: sessionId,
          pattern: "^WAITMARK-\\d+$",
          regex: true,
          timeout_seconds: 30
        })
        await sleep(LEAD_MS)
        const typed = world.runAsUser(sessionId, "echo WAITMARK-$(date +%s%N)")
        const data = await waiting
        const answeredAt = wallMs()
        await typed
        const line = String(data.matched_line ?? "")
        const printedNs = /^WAITMARK-(\d+)$/.exec(line)?.[1]
        if (data.stopped !== "matched" || printedNs === undefined) {
          throw new Error(
            `wait_for_output did not match the printed line: ${JSON.stringify(data).slice(0, 300)}`
          )
        }
        return answeredAt - Number(BigInt(printedNs) / 1000n) / 1000
      }
      for (let i = 0; i < 2; i++) await once()
      const samples: Array<number> = []
      for (let i = 0; i < o.runs; i++) samples.push(await once())
      return [
        atMost(
          { ...base, figure: "wait_for_output: pattern printed → answer", unit: "ms" },
          samples,
          WAIT_MATCH_TARGET_MS
        )
      ]
    })
  )
