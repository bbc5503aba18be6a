/**
 * TmuxId — the tmux session-id form `tmux:<socket_path>:<server_pid>.<server_start_time>:%<pane>`,
 * and for a tmux server on another host (reached over ssh, TmuxHost.ts)
 * `tmux@<[user@]host[:port]>:<socket_path|default>:<server_pid>.<server_start_time>:%<pane>`.
 * The server's pid and start time make an id unique across servers and restarts; pane numbers are
 * never reused within one server's life. Parsing is strict: nothing tmux itself would resolve as
 * a target (`%3`, `work:1.0`, `{last}`, `!`, names, titles) is an id.
 */

/** A tmux server as TermPilot names it: its socket and its `#{pid}.#{start_time}`. */
export interface ServerIdentity {
  /** The host's spec (`[user@]host[:port]`) of a server reached over ssh; absent for a local one. */
  readonly host?: string
  /** The socket path; for a server on another host, `default` when it is that host's default server. */
  readonly socket: string
  readonly pid: number
  readonly startTime: number
}

export interface TmuxPaneId extends ServerIdentity {
  /** The pane number N of `%N`. */
  readonly pane: number
}

const ID = /^tmux:(\/.+):(\d{1,10})\.(\d{1,12}):%(\d{1,9})$/
const REMOTE_ID =
  /^tmux@((?:[A-Za-z0-9_][A-Za-z0-9._-]{0,63}@)?[A-Za-z0-9_][A-Za-z0-9._-]{0,252}(?::[1-9]\d{0,4})?):(default|\/.+):(\d{1,10})\.(\d{1,12}):%(\d{1,9})$/

/** The id's prefix, which the routing layer sends to this backend. */
export const TMUX_ID_PREFIX = "tmux:"
/** The prefix of ids of panes on another host's tmux. */
export const TMUX_REMOTE_ID_PREFIX = "tmux@"

/** Whether an id has one of the tmux backend's prefixes (whether or not it is well formed). */
export const hasTmuxPrefix = (sessionId: string): boolean =>
  sessionId.startsWith(TMUX_ID_PREFIX) || sessionId.startsWith(TMUX_REMOTE_ID_PREFIX)

export const formatPaneId = (id: TmuxPaneId): string =>
  id.host === undefined
    ? `${TMUX_ID_PREFIX}${id.socket}:${id.pid}.${id.startTime}:%${id.pane}`
    : `${TMUX_REMOTE_ID_PREFIX}${id.host}:${id.socket}:${id.pid}.${id.startTime}:%${id.pane}`

/**
 * The parts of a well-formed id; null for anything else. Only the canonical spelling is an id:
 * `%00` or a pid with a leading zero would name the same pane as `%0` once parsed, so an id must
 * be exactly what `formatPaneId` makes of its parts.
 */
export const parsePaneId = (sessionId: string): TmuxPaneId | null => {
  const remote = REMOTE_ID.exec(sessionId)
  if (remote !== null) {
    const [, host, socket, pid, start, pane] = remote
    const id = {
      host: host!,
      socket: socket!,
      pid: Number(pid),
      startTime: Number(start),
      pane: Number(pane)
    }
    return Number(host!.split(":")[1] ?? 0) <= 65_535 && formatPaneId(id) === sessionId ? id : null
  }
  const match = ID.exec(sessionId)
  if (match === null) return null
  const [, socket, pid, start, pane] = match
  const id = { socket: socket!, pid: Number(pid), startTime: Number(start), pane: Number(pane) }
  return formatPaneId(id) === sessionId ? id : null
}

/** Whether two identities name the same server life. */
export const sameServer = (a: ServerIdentity, b: ServerIdentity): boolean =>
  a.host === b.host && a.socket === b.socket && a.pid === b.pid && a.startTime === b.startTime
