/**
 * TmuxId — the tmux session-id form `tmux:<socket_path>:<server_pid>.<server_start_time>:%<pane>`.
 * The server's pid and start time make an id unique across servers and restarts; pane numbers are
 * never reused within one server's life. Parsing is strict: nothing tmux itself would resolve as
 * a target (`%3`, `work:1.0`, `{last}`, `!`, names, titles) is an id.
 */

/** A tmux server as TermPilot names it: its socket and its `#{pid}.#{start_time}`. */
export interface ServerIdentity {
  readonly socket: string
  readonly pid: number
  readonly startTime: number
}

export interface TmuxPaneId extends ServerIdentity {
  /** The pane number N of `%N`. */
  readonly pane: number
}

const ID = /^tmux:(\/.+):(\d{1,10})\.(\d{1,12}):%(\d{1,9})$/

/** The id's prefix, which the routing layer sends to this backend. */
export const TMUX_ID_PREFIX = "tmux:"

export const formatPaneId = (id: TmuxPaneId): string =>
  `${TMUX_ID_PREFIX}${id.socket}:${id.pid}.${id.startTime}:%${id.pane}`

/**
 * The parts of a well-formed id; null for anything else. Only the canonical spelling is an id:
 * `%00` or a pid with a leading zero would name the same pane as `%0` once parsed, so an id must
 * be exactly what `formatPaneId` makes of its parts.
 */
export const parsePaneId = (sessionId: string): TmuxPaneId | null => {
  const match = ID.exec(sessionId)
  if (match === null) return null
  const [, socket, pid, start, pane] = match
  const id = { socket: socket!, pid: Number(pid), startTime: Number(start), pane: Number(pane) }
  return formatPaneId(id) === sessionId ? id : null
}

/** Whether two identities name the same server life. */
export const sameServer = (a: ServerIdentity, b: ServerIdentity): boolean =>
  a.socket === b.socket && a.pid === b.pid && a.startTime === b.startTime
