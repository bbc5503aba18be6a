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

/** The oldest Node.js TermPilot runs on: package.json's engines (>=22.19); the bin refuses older ones. */
export const MINIMUM_NODE = "22.19"

/** Whether Node.js `version` ("22.19.0" or "v22.19.0") is at least MINIMUM_NODE. */
export const nodeSupported = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  const [minMajor = 0, minMinor = 0] = MINIMUM_NODE.split(".").map(Number)
  return major > minMajor || (major === minMajor && minor >= minMinor)
}

/** The doctor's Node.js line: the version running TermPilot (and where it is), ok from MINIMUM_NODE on. */
export const nodeCheck = (version: string, execPath: string): Check<"node"> => {
  const running = `Node.js ${version.replace(/^v?/, "v")} (${execPath})`
  return nodeSupported(version)
    ? check("node", "ok", running)
    : check("node", "failed", `${running} is older than TermPilot needs (${MINIMUM_NODE} or newer)`, [
        `Install Node.js ${MINIMUM_NODE} or newer (24 LTS recommended): https://nodejs.org/en/download, or with a version manager (nvm install 24).`,
        "Then run TermPilot with that node (an MCP client's config may name a node path of its own)."
      ])
}
