/**
 * Which terminal backends TermPilot uses and where it looks for tmux servers, from the config file
 * and the environment. Pure: the environment and the user id come in.
 */
import { Result } from "effect"
import { type BackendName, type BackendsSetting, type Env, expandHome } from "./ConfigFile.js"

/** "auto": each backend is used when it is there; "explicit": exactly the listed ones, always. */
export interface BackendChoice {
  readonly mode: "auto" | "explicit"
  readonly enabled: ReadonlyArray<BackendName>
}

const ALL: ReadonlyArray<BackendName> = ["iterm2", "tmux"]

/**
 * Parses `TERMPILOT_BACKENDS` ("auto", or a comma-separated list of iterm2 and tmux); undefined
 * when unset or blank; on the left, what is wrong with a value that is neither.
 */
export const parseBackendsEnv = (
  value: string | undefined
): Result.Result<BackendsSetting | undefined, string> => {
  if (value === undefined || value.trim() === "") return Result.succeed(undefined)
  const trimmed = value.trim().toLowerCase()
  if (trimmed === "auto") return Result.succeed("auto")
  const names = trimmed.split(",").map((part) => part.trim())
  const [first, ...rest] = names.filter((name): name is BackendName => ALL.includes(name as BackendName))
  if (first === undefined || rest.length + 1 !== names.length) {
    return Result.fail(
      `TERMPILOT_BACKENDS must be "auto" or a comma-separated list of iterm2 and tmux (got ${JSON.stringify(value)})`
    )
  }
  return Result.succeed([...new Set([first, ...rest])] as [BackendName, ...Array<BackendName>])
}

/** The environment wins over the config file; "auto" enables both, each used when present. */
export const chooseBackends = (setting: BackendsSetting, env: BackendsSetting | undefined): BackendChoice => {
  const chosen = env ?? setting
  return chosen === "auto" ? { mode: "auto", enabled: ALL } : { mode: "explicit", enabled: chosen }
}

/** `$TMUX` is `<socket>,<server pid>,<session index>`; the socket path, when it is one. */
export const socketFromTmuxEnv = (tmux: string | undefined): string | undefined => {
  const socket = tmux === undefined ? undefined : /^(.*),\d+,-?\d+$/.exec(tmux)?.[1]
  return socket?.startsWith("/") === true ? socket : undefined
}

/**
 * The default server's socket exactly as the `tmux` command finds it: `$TMUX_TMPDIR` (else /tmp),
 * then `tmux-<uid>/default`.
 */
export const defaultTmuxSocket = (env: Env, uid: number): string => {
  const tmpdir = env.TMUX_TMPDIR
  const dir = tmpdir?.startsWith("/") === true ? tmpdir : "/tmp"
  return `${dir.replace(/\/+$/, "")}/tmux-${uid}/default`
}

/**
 * Every tmux socket to look at, in order and without repeats: the one named by `$TMUX` (the server
 * TermPilot runs inside), the default server, `TERMPILOT_TMUX_SOCKETS` (colon-separated), then the
 * config file's `tmux.sockets`. Relative entries are ignored.
 */
export const tmuxSockets = (
  env: Env,
  uid: number,
  configured: ReadonlyArray<string>
): ReadonlyArray<string> => {
  const fromEnv = (env.TERMPILOT_TMUX_SOCKETS ?? "").split(":").map((part) => part.trim())
  const candidates = [
    socketFromTmuxEnv(env.TMUX),
    defaultTmuxSocket(env, uid),
    ...fromEnv.map((path) => expandHome(path, env)),
    ...configured.map((path) => expandHome(path, env))
  ]
  return [...new Set(candidates.filter((path): path is string => path?.startsWith("/") === true))]
}

/** The pane TermPilot itself runs in (`$TMUX_PANE` on the server of `$TMUX`), if any. */
export const ownTmuxPane = (env: Env): { readonly socket: string; readonly pane: string } | null => {
  const socket = socketFromTmuxEnv(env.TMUX)
  const pane = env.TMUX_PANE
  return socket !== undefined && pane !== undefined && /^%\d+$/.test(pane) ? { socket, pane } : null
}
