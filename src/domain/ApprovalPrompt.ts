/**
 * The text of the approval dialog: the exact action (never cut short; every character that is
 * not plain printable ASCII also named by code point, so look-alikes cannot pass for what they
 * resemble), the target session (backend, titles, host, user, cwd, remote or nested as far as
 * TermPilot can tell) and what will happen. Labels come from the terminal and are hostile: they
 * are shown quoted, with control and concealing characters marked, and bounded. Pure.
 */

import { sanitizeTerminalText } from "./Hygiene.js"
import type { SessionInfo } from "./Session.js"

/** The target as SessionInfo describes it (only what the dialog shows). */
export type PromptTarget = Pick<
  SessionInfo,
  | "session_id"
  | "backend"
  | "window_title"
  | "tab_title"
  | "session_title"
  | "hostname"
  | "username"
  | "cwd"
  | "job_name"
  | "via"
>

export interface PromptSpec {
  /** What the action is called in the dialog: "Command", "Keys", "Interrupt". */
  readonly label: string
  /** The action itself, exactly. */
  readonly shown: string
  /** What will happen on accept, one sentence. */
  readonly effect: string
  /** Why the policy asks. */
  readonly reason: string
  readonly target: PromptTarget
  /** This machine's host name, to tell a remote session. */
  readonly localHost: string
  readonly timeoutSeconds: number
}

const LABEL_MAX = 200

/**
 * How the action's and the labels' own characters are written: as they are (the client's dialog),
 * or, for a prompt drawn in a terminal, with every one outside printable ASCII named in place
 * (`nameNonAscii`), so nothing in them can draw, move or hide anything there.
 */
export type Visible = (text: string) => string

const asIs: Visible = (text) => text

/** Every code point outside printable ASCII written as `<U+XXXX>`. */
export const nameNonAscii: Visible = (text) =>
  Array.from(text, (ch) => {
    const cp = ch.codePointAt(0) ?? 0
    return cp >= 0x20 && cp <= 0x7e ? ch : `<U+${cp.toString(16).toUpperCase().padStart(4, "0")}>`
  }).join("")

/** A terminal-supplied label: quoted (JSON escapes), concealing characters marked, bounded. */
export const quoteLabel = (value: string | null, visible: Visible = asIs): string => {
  if (value === null) return "(unknown)"
  const clean = sanitizeTerminalText(value, { mode: "mark" }).text
  const chars = Array.from(clean)
  const bounded =
    chars.length > LABEL_MAX ? `${visible(chars.slice(0, LABEL_MAX).join(""))}…` : visible(clean)
  return JSON.stringify(bounded)
}

/**
 * The line a prompt in the person's terminal starts with: who asks (the MCP client's name, quoted,
 * bounded and with its characters outside printable ASCII named, as a label).
 */
export const askedBy = (asker: string | null): string =>
  `${asker === null ? "An MCP client" : `The MCP client ${quoteLabel(asker, nameNonAscii)}`} asks, through TermPilot:`

/** Every code point of `text` outside printable ASCII, named, e.g. "U+0430 at position 3". */
export const unusualCharacters = (text: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  Array.from(text).forEach((ch, position) => {
    const cp = ch.codePointAt(0) ?? 0
    if (cp < 0x20 || cp > 0x7e) {
      found.push(`U+${cp.toString(16).toUpperCase().padStart(4, "0")} at position ${position}`)
    }
  })
  return found
}

const NESTED_JOBS = /^(?:ssh|mosh|mosh-client|tmux|screen|docker|kubectl|podman|telnet|et|autossh)$/

const whereItRuns = (target: PromptTarget, localHost: string, visible: Visible): string => {
  const label = (value: string | null) => quoteLabel(value, visible)
  const host = target.hostname
  const remote =
    host === null
      ? "unknown (the terminal does not report a host)"
      : host === localHost
        ? "no (same host as TermPilot)"
        : `yes (host ${label(host)}, TermPilot runs on ${label(localHost)})`
  const job = target.job_name
  const via = target.via ?? []
  const nested =
    via.length > 0
      ? `yes: reached through ${via.map(label).join(" → ")} from the pane's own shell`
      : job !== null && NESTED_JOBS.test(job)
        ? `yes: the foreground program is ${label(job)}, so the keys go to whatever it is connected to`
        : target.via === null
          ? "not that TermPilot can see"
          : "no (the pane's own shell)"
  return `Remote: ${remote}\nNested session: ${nested}`
}

/**
 * The dialog's message. `visible` writes the action's and the labels' characters (see Visible);
 * the counts and positions are always those of the action itself.
 */
export const approvalMessage = (spec: PromptSpec, visible: Visible = asIs): string => {
  const label = (value: string | null) => quoteLabel(value, visible)
  const t = spec.target
  const unusual = unusualCharacters(spec.shown)
  const named = visible !== asIs && unusual.length > 0 ? ["(written here as <U+XXXX>)"] : []
  const lines = [
    `TermPilot asks before it types into your terminal (${spec.reason}).`,
    "",
    `${spec.label} (exactly, ${Array.from(spec.shown).length} characters, between the » « marks):`,
    `»${visible(spec.shown)}«`,
    ...(unusual.length === 0 ? [] : [`Characters that are not plain ASCII: ${unusual.join(", ")}`, ...named]),
    "",
    `Target: ${t.backend === "tmux" ? "tmux" : "iTerm2"} session_id ${JSON.stringify(t.session_id)}`,
    `Window / tab / session title: ${label(t.window_title)} / ${label(t.tab_title)} / ${label(t.session_title)}`,
    `Host: ${label(t.hostname)}  User: ${label(t.username)}  Directory: ${label(t.cwd)}`,
    whereItRuns(t, spec.localHost, visible),
    "",
    `What will happen: ${spec.effect}`,
    `Accept to send it once. Decline, or no answer within ${spec.timeoutSeconds} s, sends nothing.`
  ]
  return lines.join("\n")
}
