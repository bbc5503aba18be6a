/**
 * Health checks as the doctors report them (`termpilot doctor`, `termpilot chatgpt doctor`): each
 * check is ok / warning / failed / skipped with a detail and a remedy, rendered the same way for
 * people, and as-is in `--json` reports.
 */

export type CheckStatus = "ok" | "warning" | "failed" | "skipped"

export interface Check<Name extends string = string> {
  readonly name: Name
  readonly status: CheckStatus
  readonly detail: string
  /** What to do about it; lines separated by "\n". */
  readonly remedy: string | null
}

export const check = <Name extends string>(
  name: Name,
  status: CheckStatus,
  detail: string,
  remedy: ReadonlyArray<string> = []
): Check<Name> => ({ name, status, detail, remedy: remedy.length > 0 ? remedy.join("\n") : null })

/** A report passes when no check failed (warnings and skips alone do not fail it). */
export const passed = (checks: ReadonlyArray<Check>): boolean => checks.every((c) => c.status !== "failed")

/** Human lines: a title, one line per check with its remedy indented under it, and a verdict. */
export const renderChecks = <Name extends string>(
  title: string,
  checks: ReadonlyArray<Check<Name>>,
  label: (name: Name) => string
): Array<string> => {
  const lines = [title]
  for (const c of checks) {
    lines.push(`  [${c.status}]${" ".repeat(Math.max(1, 9 - c.status.length))}${label(c.name)}: ${c.detail}`)
    if (c.remedy !== null) lines.push(...c.remedy.split("\n").map((line) => `             ${line}`))
  }
  const failed = checks.filter((c) => c.status === "failed").length
  lines.push(passed(checks) ? "All checks passed." : `${failed} check(s) failed.`)
  return lines
}
