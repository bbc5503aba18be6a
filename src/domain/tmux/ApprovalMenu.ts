/**
 * ApprovalMenu — the approval prompt drawn on the person's own tmux client as a `display-menu`,
 * and the person's client it goes to. The menu's lines are the approval text (every character
 * outside printable ASCII written as `<U+XXXX>`, long lines wrapped with a `↳` mark, each line a
 * disabled item, `#` doubled so tmux expands no format in it), then "Decline" (`n`) and "Allow
 * once" (`y`). Only "Allow once" runs a command: `wait-for -L <channel>`, locking a channel named
 * by a random secret that exists nowhere but in this script; the script's next line, run when the
 * menu closes for any reason, unlocks it, which fails unless the person chose "Allow once". The
 * script reaches tmux on a client's stdin (`source-file -`), never in an argument. Pure.
 */
import { askedBy, nameNonAscii } from "../ApprovalPrompt.js"
import { formatOf, parseFields } from "./PaneFormat.js"

/** The marks the approval text itself uses; every other character outside printable ASCII is named. */
const OWN_MARKS = new Set(["»", "«", "…", "→", "↳"])

/** Text that a menu draws as it is: printable ASCII and the text's own marks, all one cell wide. */
export const menuSafe = (text: string): string =>
  Array.from(text, (ch) => (OWN_MARKS.has(ch) ? ch : nameNonAscii(ch))).join("")

/** Where a line longer than `width` is cut: after its last space that fits for prose, else at `width`. */
const cutAt = (chars: ReadonlyArray<string>, width: number, prose: boolean): number => {
  if (!prose) return width
  const space = chars.lastIndexOf(" ", width - 1)
  return space > 0 ? space + 1 : width
}

/**
 * `text` cut into lines of at most `width` characters; a cut line goes on after a `↳ ` mark. A
 * line with a quoted value or the action (`"`, `»`) is cut exactly at the width, every character
 * kept where it was; prose is cut after a space.
 */
export const wrapLines = (text: string, width: number): ReadonlyArray<string> =>
  text.split("\n").flatMap((line) => {
    const safe = menuSafe(line)
    const prose = !/["\u00bb]/.test(safe)
    let rest = Array.from(safe)
    const out: Array<string> = []
    let room = width
    while (rest.length > room) {
      const cut = cutAt(rest, room, prose)
      out.push(`${out.length === 0 ? "" : "↳ "}${rest.slice(0, cut).join("")}`)
      rest = rest.slice(cut)
      room = width - 2
    }
    out.push(`${out.length === 0 ? "" : "↳ "}${rest.join("")}`)
    return out
  })

/** One argument for tmux's command parser, in double quotes, with no format expanded in it. */
export const tmuxQuoted = (text: string): string =>
  `"${text.replace(/[\\"$]/g, (c) => `\\${c}`).replace(/#/g, "##")}"`

/** The fields of `list-clients` the prompt's client is chosen by. */
const CLIENT_FIELDS = [
  "client_control_mode",
  "client_readonly",
  "client_activity",
  "client_tty",
  "window_id",
  "session_id",
  "client_width",
  "client_height"
] as const
export const APPROVAL_CLIENTS_LINE = `list-clients -F ${formatOf(CLIENT_FIELDS)}`

/** The fields of the target pane the prompt names. */
const PANE_FIELDS = [
  "pane_id",
  "window_id",
  "session_id",
  "session_name",
  "window_index",
  "window_name"
] as const
export const approvalPaneLine = (pane: number) => `display -p -t %${pane} ${formatOf(PANE_FIELDS)}`

export type ApprovalPane = Readonly<Record<(typeof PANE_FIELDS)[number], string>>
export const parseApprovalPane = (pane: number, line: string): ApprovalPane | null => {
  const row = parseFields(PANE_FIELDS, line)
  return row !== null && row.pane_id === `%${pane}` ? row : null
}

/** A person's client the prompt can be drawn on. */
export interface PersonClient {
  readonly tty: string
  readonly width: number
  readonly height: number
  /** Whether its current window holds the target pane. */
  readonly shows: boolean
}

const TTY = /^\/dev\/[A-Za-z0-9/_.-]+$/

/**
 * The client to ask on: of the attached clients that are not control clients (TermPilot's own
 * are) nor read-only, the most recently active one that shows the target pane's window, else one
 * attached to its session, else any; null when there is none.
 */
export const chooseClient = (lines: ReadonlyArray<string>, target: ApprovalPane): PersonClient | null => {
  const rank = (row: Readonly<Record<(typeof CLIENT_FIELDS)[number], string>>) =>
    row.window_id === target.window_id ? 2 : row.session_id === target.session_id ? 1 : 0
  let best: { client: PersonClient; rank: number; activity: number } | null = null
  for (const line of lines) {
    const row = parseFields(CLIENT_FIELDS, line)
    if (row === null || row.client_control_mode !== "0" || row.client_readonly !== "0") continue
    if (!TTY.test(row.client_tty) || row.session_id === "") continue
    const candidate = {
      client: {
        tty: row.client_tty,
        width: Number(row.client_width),
        height: Number(row.client_height),
        shows: row.window_id === target.window_id
      },
      rank: rank(row),
      activity: Number(row.client_activity)
    }
    if (
      best === null ||
      candidate.rank > best.rank ||
      (candidate.rank === best.rank && candidate.activity > best.activity)
    )
      best = candidate
  }
  return best?.client ?? null
}

export interface MenuSpec {
  /** Who asks (the MCP client's name), or null. */
  readonly asker: string | null
  /** The approval text (ApprovalPrompt), its action's characters already named. */
  readonly message: string
  readonly pane: number
  readonly target: ApprovalPane
  readonly client: PersonClient
  /** The secret channel name: `[a-z0-9-]` only. */
  readonly channel: string
}

/** Columns and rows a menu takes beyond its widest item and its item count (tmux's menu.c). */
const MENU_BORDER_COLUMNS = 4
const MENU_BORDER_ROWS = 2
/** The widest item: its name plus the " (y)" tmux adds for a key. */
const KEY_SUFFIX = 4

/** The script for `tmux source-file -`, or why the menu cannot be shown on that client. */
export const approvalScript = (
  spec: MenuSpec
): { readonly script: string } | { readonly tooSmall: string } => {
  const { client, target } = spec
  const width = client.width - MENU_BORDER_COLUMNS - KEY_SUFFIX
  const where = `tmux pane %${spec.pane} in window ${target.window_index} ${JSON.stringify(target.window_name)} of session ${JSON.stringify(target.session_name)}`
  const shownOn = client.shows ? "" : " (this client shows another window)"
  const text = [
    askedBy(spec.asker),
    "",
    spec.message,
    `Where: ${where}${shownOn}`,
    "",
    "y: allow once.  n or Escape: decline, nothing is sent."
  ].join("\n")
  const title = " TermPilot asks for your approval "
  if (width < 30) return { tooSmall: `the person's tmux client is ${client.width} columns wide` }
  const lines = wrapLines(text, width)
  const items = lines.length + 3
  if (items + MENU_BORDER_ROWS > client.height)
    return {
      tooSmall: `the prompt takes ${items + MENU_BORDER_ROWS} rows and the person's tmux client has ${client.height}`
    }
  const args = [
    "display-menu",
    "-c",
    tmuxQuoted(client.tty),
    "-t",
    `%${spec.pane}`,
    "-T",
    tmuxQuoted(title),
    "-x",
    "C",
    "-y",
    "C",
    "--",
    ...lines.flatMap((line) => [tmuxQuoted(`-${line === "" ? " " : line}`), '""', '""']),
    '""',
    tmuxQuoted("Decline (nothing is sent)"),
    "n",
    '""',
    tmuxQuoted("Allow once"),
    "y",
    tmuxQuoted(`wait-for -L ${spec.channel}`)
  ]
  return { script: `${args.join(" ")}\nwait-for -U ${spec.channel}\n` }
}
