/**
 * Stats — the bench's rows: samples summarised as median and 95th percentile, each row with its
 * target and whether the figure meets it, rendered as one Markdown table.
 */

export interface Summary {
  readonly runs: number
  readonly median: number
  readonly p95: number
}

export interface Row extends Summary {
  /** Which server: "termpilot (iTerm2 fake)", "floor", … */
  readonly subject: string
  readonly figure: string
  /** Node version the measured process ran on ("" when it is not a Node process). */
  readonly node: string
  readonly unit: "ms" | "MB" | "×" | "count"
  /** Human-readable target; "" for an informational row. */
  readonly target: string
  /** Whether the target is met; undefined for an informational row. */
  readonly ok?: boolean
  readonly note?: string
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? Number.NaN

export const summarize = (samples: ReadonlyArray<number>): Summary => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { runs: samples.length, median: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) }
}

/** A row whose target is "median ≤ limit". */
export const atMost = (
  base: Omit<Row, keyof Summary | "target" | "ok">,
  samples: ReadonlyArray<number>,
  limit: number
): Row => {
  const summary = summarize(samples)
  return { ...base, ...summary, target: `≤ ${limit} ${base.unit}`, ok: summary.median <= limit }
}

/** An informational row (a floor, a breakdown). */
export const info = (
  base: Omit<Row, keyof Summary | "target" | "ok">,
  samples: ReadonlyArray<number>
): Row => ({
  ...base,
  ...summarize(samples),
  target: ""
})

const fmt = (n: number, unit: Row["unit"]) =>
  Number.isNaN(n) ? "–" : unit === "count" ? String(Math.round(n)) : n >= 100 ? n.toFixed(0) : n.toFixed(1)

export const markdownTable = (rows: ReadonlyArray<Row>): string => {
  const header = ["subject", "figure", "node", "runs", "median", "p95", "unit", "target", "", "note"]
  const lines = rows.map((r) => [
    r.subject,
    r.figure,
    r.node,
    String(r.runs),
    fmt(r.median, r.unit),
    fmt(r.p95, r.unit),
    r.unit,
    r.target,
    r.ok === undefined ? "" : r.ok ? "ok" : "SHORT",
    r.note ?? ""
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`
  return [line(header), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...lines.map(line)].join("\n")
}
