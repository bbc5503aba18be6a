/**
 * EarlierPrompt — a prompt drawn before TermPilot watched the pane, proved idle and empty without
 * a keypress: the shell that announced a token is still that shell in this pane (no `exec`
 * replaced it, no other process reuses its pid), holds its terminal's foreground and is the only
 * process on it; the record its snippet wrote right before drawing its latest prompt (token,
 * prompt number, the prompt as expanded; src/domain/tmux/PromptRecord.ts) is there; and the pane
 * shows exactly that prompt at the cursor with nothing after it, read over the client that
 * streams the pane while the pane wrote nothing. Then the stream takes that prompt as seen (with
 * the text typed after it, when the row shows more than the prompt: never ready). Anything short
 * of that proves nothing, and the pane stays `unknown` ("press Enter in the pane once"). The same
 * record, of that same shell, also names the last command it ran (its status, and where the shell
 * can say so without a fork its line, directory and times): while the stream has counted no mark,
 * that command becomes the pane's first entry in list_commands, without output. A pane
 * of a tmux server on another host is never proved this way (its shell's /proc and record file are
 * that host's): it is `unknown` until its shell draws a prompt TermPilot watches.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { parseAnnouncement, parseOsc7 } from "../../../domain/Osc133.js"
import { type FlagRow, flagsOf, interactiveReason, tokensOf } from "../../../domain/tmux/PaneFormat.js"
import {
  lastVisibleLine,
  MAX_RECORD_BYTES,
  type PromptRecord,
  parsePromptRecord,
  promptShown
} from "../../../domain/tmux/PromptRecord.js"
import { aloneOnTerminal, shellHoldsForeground, stillShellOfPane, TerminalTable } from "./Foreground.js"
import type { PaneEntry } from "./PaneTable.js"
import type { TmuxServer } from "./Server.js"

/** How long after a failed proof a pane is not tried again. */
const RETRY_MS = 1_000

/** The shell's environment at its start (its /proc environ), or null. */
const environOf = (pid: number): ReadonlyMap<string, string> | null => {
  try {
    const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")
    return new Map(
      entries.flatMap((e) => {
        const eq = e.indexOf("=")
        return eq > 0 ? [[e.slice(0, eq), e.slice(eq + 1)] as const] : []
      })
    )
  } catch {
    return null
  }
}

const uid = typeof process.getuid === "function" ? process.getuid() : -1

/**
 * The directory the snippet writes its records to, as it chose it from its environment:
 * `${XDG_RUNTIME_DIR:-${TMPDIR:-/tmp}}/termpilot-$UID` (a file per shell pid), trusted only as our own directory that no
 * one else may enter.
 */
const recordDir = (pid: number): string | null => {
  const env = environOf(pid)
  if (env === null || uid < 0) return null
  const dir = join(env.get("XDG_RUNTIME_DIR") || env.get("TMPDIR") || "/tmp", `termpilot-${uid}`)
  try {
    const stat = lstatSync(dir)
    return stat.isDirectory() && stat.uid === uid && (stat.mode & 0o077) === 0 ? dir : null
  } catch {
    return null
  }
}

/** The record of the shell `pid` announced with `token`: a regular file of ours, bounded, never a FIFO or a link. */
export const readPromptRecord = (pid: number, token: string): PromptRecord | null => {
  const dir = recordDir(pid)
  if (dir === null) return null
  let fd: number
  try {
    fd = openSync(join(dir, String(pid)), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
  } catch {
    return null
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.uid !== uid || stat.size > MAX_RECORD_BYTES) return null
    const buffer = Buffer.alloc(MAX_RECORD_BYTES + 1)
    const length = readSync(fd, buffer, 0, buffer.length, 0)
    if (length > MAX_RECORD_BYTES) return null
    const record = parsePromptRecord(buffer.toString("utf8", 0, length))
    return record?.token === token ? record : null
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
}

/**
 * Whether a prompt drawn before watching may still be proved for `entry` (undefined: a pane not
 * tracked yet): its stream has counted no mark and doubts nothing. Its announced tokens may not
 * have been read yet (then `untouched` is still false): `proveEarlierPrompt` reads them first, so
 * every caller asks this, never `untouched`, before deciding to try (the same proof whichever tool
 * comes first).
 */
export const mayProveEarlier = (entry: PaneEntry | undefined): boolean => {
  if (entry === undefined) return true
  const facts = entry.stream.facts
  return !entry.inFlight && facts.lastMark === null && facts.doubt === null
}

/** The pane's cursor column and row, and its visible rows. */
const screenLines = (pane: number) => [
  `display -p -t %${pane} '#{cursor_x} #{cursor_y}'`,
  `capture-pane -p -t %${pane} -S 0 -E -`
]

/**
 * Tries to prove the pane's prompt was drawn earlier and is idle with nothing typed; on success
 * the pane's stream adopts it. Never fails: what cannot be proved leaves the pane as it was. The
 * panes of one listing share one `terminals` table (one /proc scan).
 */
export const proveEarlierPrompt = (
  server: TmuxServer,
  pane: number,
  row: FlagRow,
  terminals: TerminalTable = new TerminalTable()
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const entry = server.panes.entry(pane)
    entry.announce(tokensOf(row["@termpilot_tokens"]))
    if (server.remote) return
    const flags = flagsOf(row)
    if (!entry.stream.untouched || entry.inFlight) return
    if (interactiveReason(flags) !== null || flags.panePid === null) return
    if (!entry.tryEarlier(Date.now(), RETRY_MS)) return
    const shell = entry.stream.tokenList
      .map(parseAnnouncement)
      .find((a) => a !== null && !a.nested && a.pid !== null && shellHoldsForeground(a.pid, flags.panePid))
    if (shell === undefined || shell === null || shell.pid === null) return
    // The pid is the shell that announced it, in this pane (not `exec cat` or `exec ssh` in its place).
    if (!stillShellOfPane(shell.pid, flags.panePid)) return
    // Cheapest first: the record (one small file), then every process on the terminal, then tmux.
    const record = readPromptRecord(shell.pid, shell.token)
    // The last command it ran, by its own record: listed without output whatever the screen shows.
    if (record?.last != null) entry.earlier(shell.token, record.last)
    // The snippet reports its directory (OSC 7, kept by tmux as `pane_path`) right before each
    // prompt it records: the commands typed at that prompt start there, as if the stream had seen it.
    const reported = record === null ? null : parseOsc7(row.pane_path)
    if (reported?._tag === "Directory") entry.reportedCwd(reported.path, reported.host)
    const drawn = record === null ? null : lastVisibleLine(record.prompt)
    if (record === null || drawn === null || drawn.trim() === "") return
    if (aloneOnTerminal(shell.pid, flags.panePid, terminals) !== true) return
    // Only a client that streams the pane orders its replies after the pane's bytes: its owner,
    // else its session's client, attached now if that session has none yet.
    const owner = entry.owner?.isOpen === true ? entry.owner : null
    const client = owner ?? (yield* server.ensureClient(row.session_id))
    if (!client.isOpen) return
    const fed = entry.stream.fed
    const [cursor, capture] = yield* client.commands(screenLines(pane))
    if (entry.stream.fed !== fed || !entry.stream.untouched || entry.inFlight) return
    if (entry.owner !== null && entry.owner !== client && entry.owner.isOpen) return
    const at = /^(\d+) (\d+)$/.exec(cursor?.ok === true ? (cursor.lines[0] ?? "") : "")
    if (at === null || capture?.ok !== true) return
    const screen = { cursorX: Number(at[1]), rows: capture.lines.slice(Number(at[2])) }
    const shown = promptShown(record, screen)
    if (shown === null) return
    entry.adopt(client, shell.token, record.seq, shown === "typed")
  }).pipe(Effect.ignore)
