/**
 * Issue23 — issue 23's table of targets, picked out of the bench's rows (one per figure, backend
 * and Node), so that `npm run bench` prints every row of it with its target. A row this run did not
 * measure (BENCH_BACKENDS, BENCH_FIGURES) is printed as such. The issue sets some targets relative
 * to the Python prototype, which cannot run here: those rows show the absolute figure against the
 * absolute target the bench already holds (issue 17's), and say so in the note column.
 */
import type { Row } from "./Stats.js"

const PROTOTYPE =
  "issue 23's target is relative to the Python prototype, not measurable here: issue 17's absolute target"

interface Wanted {
  readonly subject: string
  readonly figure: string
  readonly unit: Row["unit"]
  readonly note?: string
}

const ITERM2 = "termpilot (iTerm2 fake)"
const TMUX = "termpilot (tmux)"

/** Issue 23's rows, in its order, as the bench names them. */
const WANTED: ReadonlyArray<Wanted> = [
  { subject: ITERM2, figure: "idle RSS after 100 mixed calls", unit: "MB" },
  { subject: TMUX, figure: "idle RSS after 100 mixed calls", unit: "MB" },
  { subject: TMUX, figure: "5 MB of command output: peak RSS", unit: "MB" },
  { subject: ITERM2, figure: "run_command `true`, end to end minus the shell's own time", unit: "ms" },
  {
    subject: ITERM2,
    figure: "read_terminal 200 lines, 100,000-line scrollback",
    unit: "ms",
    note: PROTOTYPE
  },
  { subject: ITERM2, figure: "list_sessions, 100 session(s)", unit: "ms", note: PROTOTYPE },
  { subject: TMUX, figure: "run_command `true`, end to end", unit: "ms" },
  { subject: TMUX, figure: "list_sessions, 100 session(s)", unit: "ms" }
]

/** Issue 23's table for each Node in `nodes`: the measured row, or one saying it was not measured. */
export const issue23Rows = (rows: ReadonlyArray<Row>, nodes: ReadonlyArray<string>): ReadonlyArray<Row> =>
  nodes.flatMap((node) =>
    WANTED.map((wanted): Row => {
      const found = rows.find(
        (r) => r.subject === wanted.subject && r.figure === wanted.figure && r.node === node
      )
      if (found === undefined)
        return {
          subject: wanted.subject,
          figure: wanted.figure,
          node,
          unit: wanted.unit,
          runs: 0,
          median: Number.NaN,
          p95: Number.NaN,
          target: "",
          note: "not measured in this run (BENCH_BACKENDS / BENCH_FIGURES)"
        }
      const note = [found.note, wanted.note].filter((n) => n !== undefined && n !== "").join("; ")
      return note === "" ? found : { ...found, note }
    })
  )
