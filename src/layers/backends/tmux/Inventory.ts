/**
 * Inventory — the pane listing of one tmux server as SessionInfo: one `list-panes -a` and one
 * `list-clients` in a single write over an attached control client, a control client attached for
 * every session that has none yet (so its marks are watched from now on), and `is_current` from
 * the most recently active client that is not a control client.
 */
import { userInfo } from "node:os"
import { Effect } from "effect"
import { parseOsc7 } from "../../../domain/Osc133.js"
import {
  flagsOf,
  formatOf,
  PANE_FIELDS,
  type PaneRow,
  paneNumber,
  parseFields,
  tokensOf
} from "../../../domain/tmux/PaneFormat.js"
import { formatPaneId } from "../../../domain/tmux/TmuxId.js"
import type { TermPilotError } from "../../../services/Errors.js"
import type { SessionInfo } from "../../../services/Terminal.js"
import { claimAware } from "./Claims.js"
import { isOwnPane, type OwnPane, paneHostsClient } from "./ClientPane.js"
import { readProcText, viaOf } from "./Foreground.js"
import { entryReadiness, type StreamView } from "./PaneTable.js"
import type { TmuxServer } from "./Server.js"

const CLIENT_FIELDS = ["client_control_mode", "client_activity", "session_id"] as const
export const LIST_PANES_LINE = `list-panes -a -F ${formatOf(PANE_FIELDS)}`
export const LIST_CLIENTS_LINE = `list-clients -F ${formatOf(CLIENT_FIELDS)}`
export const paneLine = (pane: number) => `display -p -t %${pane} ${formatOf(PANE_FIELDS)}`

/** The fields a pane's labels come from, in SessionInfo's order (window, tab, session title). */
const LABEL_FIELDS = ["pane_id", "session_name", "window_name", "pane_title"] as const
export const labelLine = (pane: number) => `display -p -t %${pane} ${formatOf(LABEL_FIELDS)}`

/** The labels in a `labelLine` reply for pane `%pane`; null when the reply is not that pane's. */
export const labelsOf = (pane: number, line: string): ReadonlyArray<string> | null => {
  const row = parseFields(LABEL_FIELDS, line)
  if (row === null || row.pane_id !== `%${pane}`) return null
  return [row.session_name, row.window_name, row.pane_title].filter((t) => t !== "")
}

/** The session of a server's most recently active human (non-control) client, and when. */
export interface HumanFocus {
  readonly session: string
  readonly activity: number
}

export const humanFocus = (lines: ReadonlyArray<string>): HumanFocus | null => {
  let best: HumanFocus | null = null
  for (const line of lines) {
    const row = parseFields(CLIENT_FIELDS, line)
    if (row === null || row.client_control_mode === "1" || row.session_id === "") continue
    const activity = Number(row.client_activity)
    if (best === null || activity > best.activity) best = { session: row.session_id, activity }
  }
  return best
}

/** Whether `row` is the active pane of the active window of the focused session. */
export const isFocused = (row: PaneRow, focus: HumanFocus | null): boolean =>
  focus !== null && row.session_id === focus.session && row.window_active === "1" && row.pane_active === "1"

const text = (value: string): string | null => (value === "" ? null : value)

/** cwd: the shell's OSC 7, else `#{pane_path}` when it is a file URL, else the process's cwd. */
const location = (row: PaneRow, stream: StreamView) => {
  const fromPath = parseOsc7(row.pane_path)
  const reported = stream.cwd ?? (fromPath?._tag === "Directory" ? fromPath : null)
  return {
    cwd: reported?.path ?? text(row.pane_current_path),
    hostname: reported?.host ?? null
  }
}

const ownUid = typeof process.getuid === "function" ? process.getuid() : -1
let ownName: string | null | undefined

/**
 * The user a local shell runs as, when it is this process's user (the real uid in
 * /proc/<pid>/status): a prompt drawn before TermPilot watched has shown no RemoteHost to it yet.
 * Null for another user, or when it cannot be read.
 */
export const localShellUser = (pid: number | null): string | null => {
  if (pid === null || ownUid < 0) return null
  const status = readProcText(`/proc/${pid}/status`)
  if (status === null) return null
  if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? -1) !== ownUid) return null
  if (ownName === undefined) {
    try {
      ownName = userInfo().username || null
    } catch {
      ownName = null
    }
  }
  return ownName
}

export const toSessionInfo = (
  server: TmuxServer,
  row: PaneRow,
  pane: number,
  current: boolean,
  own: OwnPane | null
): SessionInfo => {
  const entry = server.panes.entry(pane)
  const { cwd, hostname } = location(row, entry.stream)
  const flags = flagsOf(row)
  const facts = entry.stream.facts
  return {
    session_id: formatPaneId({ ...server.identity, pane }),
    backend: "tmux",
    window_id: text(row.session_id),
    tab_id: text(row.window_id),
    window_number: /^\d+$/.test(row.window_index) ? Number(row.window_index) : null,
    window_title: text(row.session_name),
    tab_title: text(row.window_name),
    session_title: text(row.pane_title),
    // A pane of another host's tmux: that host, as configured, until its shell reports its own name.
    hostname: hostname ?? entry.stream.remoteHost?.host ?? server.transport.host?.host ?? null,
    // The last prompt's RemoteHost, else (a local shell, no prompt seen since watching) its owner.
    username:
      entry.stream.remoteHost?.user ||
      (server.remote ? server.transport.host?.user : localShellUser(facts.shellPid)) ||
      null,
    cwd,
    // Read from /proc: for another host's panes, not from here.
    via: server.remote ? null : viaOf(entry.stream.rootPid, facts.shellPid, facts.nestedUnder, flags.panePid),
    tty: text(row.pane_tty),
    job_name: text(row.pane_current_command),
    profile_name: null,
    tag: text(row["@termpilot_tag"]),
    is_current: current,
    buried: false,
    hosts_this_client: isOwnPane(own, { ...server.identity, pane }) || paneHostsClient(server, flags),
    execution_readiness: claimAware(entryReadiness(entry, flags), flags.claim)
  }
}

/** Update the pane's known tokens from a fresh row. */
export const noteTokens = (server: TmuxServer, pane: number, row: { readonly "@termpilot_tokens": string }) =>
  server.panes.entry(pane).announce(tokensOf(row["@termpilot_tokens"]))

/** Every pane of one server (a pane of a window linked into several sessions once), and its focus. */
export const listServer = (
  server: TmuxServer
): Effect.Effect<
  { readonly rows: ReadonlyArray<PaneRow>; readonly focus: HumanFocus | null },
  TermPilotError
> =>
  Effect.gen(function* () {
    const client = yield* server.primary()
    const [panes, clients] = yield* client.commands([LIST_PANES_LINE, LIST_CLIENTS_LINE])
    const rows: Array<PaneRow> = []
    const seen = new Set<string>()
    const sessions = new Set<string>()
    for (const line of panes?.ok === true ? panes.lines : []) {
      const row = parseFields(PANE_FIELDS, line)
      if (row === null || paneNumber(row.pane_id) === null) continue
      sessions.add(row.session_id)
      if (seen.has(row.pane_id)) continue
      seen.add(row.pane_id)
      rows.push(row)
    }
    yield* Effect.forEach(sessions, (s) => Effect.ignore(server.ensureClient(s)), {
      concurrency: "unbounded"
    })
    return { rows, focus: clients?.ok === true ? humanFocus(clients.lines) : null }
  })
