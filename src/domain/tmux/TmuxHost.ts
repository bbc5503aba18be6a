/**
 * TmuxHost — a host whose tmux TermPilot reaches over the person's own ssh: `[user@]host[:port]`,
 * as named in the config file's `tmux.hosts` and in `TERMPILOT_TMUX_HOSTS` (comma-separated).
 * Parsing is strict: a host name or ssh_config alias of letters, digits, `.`, `_` and `-` that does
 * not start with `-` (never an ssh option), an optional user of the same kind, an optional port
 * 1–65535 without a leading zero. Nothing else (no IPv6 literal, no spaces, no `ssh://`) is a host.
 * `spec` is the canonical spelling; it names the host in session ids (TmuxId.ts).
 */
import { Result } from "effect"

export interface TmuxHost {
  readonly user: string | null
  readonly host: string
  readonly port: number | null
  /** `[user@]host[:port]`, exactly as parsed (the id's host part). */
  readonly spec: string
}

const NAME = "[A-Za-z0-9_][A-Za-z0-9._-]{0,252}"
const USER = "[A-Za-z0-9_][A-Za-z0-9._-]{0,63}"
const HOST = new RegExp(`^(?:(${USER})@)?(${NAME})(?::([1-9]\\d{0,4}))?$`)

/** The host a spec names; null for anything that is not exactly one. */
export const parseTmuxHost = (text: string): TmuxHost | null => {
  const match = HOST.exec(text)
  if (match === null) return null
  const [, user, host, port] = match
  const portNumber = port === undefined ? null : Number(port)
  if (portNumber !== null && portNumber > 65_535) return null
  return { user: user ?? null, host: host!, port: portNumber, spec: text }
}

/** Every host of a list, without repeats; on the left, what is wrong with the first bad entry. */
export const parseTmuxHosts = (
  entries: ReadonlyArray<string>,
  source: string
): Result.Result<ReadonlyArray<TmuxHost>, string> => {
  const hosts: Array<TmuxHost> = []
  for (const entry of entries) {
    const host = parseTmuxHost(entry)
    if (host === null)
      return Result.fail(
        `${source}: ${JSON.stringify(entry)} is not a host (expected [user@]host[:port], e.g. build-box or deploy@db-1:2222)`
      )
    if (!hosts.some((h) => h.spec === host.spec)) hosts.push(host)
  }
  return Result.succeed(hosts)
}

/** `TERMPILOT_TMUX_HOSTS`: comma-separated hosts (blank entries around commas are not allowed). */
export const parseTmuxHostsEnv = (
  value: string | undefined
): Result.Result<ReadonlyArray<TmuxHost>, string> =>
  value === undefined || value.trim() === ""
    ? Result.succeed([])
    : parseTmuxHosts(
        value.split(",").map((part) => part.trim()),
        "TERMPILOT_TMUX_HOSTS"
      )
