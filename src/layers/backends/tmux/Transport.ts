/**
 * Transport (TmuxTransport) — the subprocess that carries tmux: `tmux -S <socket> …` for a
 * local server, or `ssh -T -o BatchMode=yes [-F config] [-p port] [-l user] host -- tmux …` for the
 * default tmux server of another host (TmuxHost.ts). Everything above it (the control protocol of
 * Connection.ts, Server.ts, the registry, the tools) is the same for both. Over ssh: never a password or host-key prompt
 * (BatchMode; stdin is the control protocol), a bounded connect, keepalives so a dead link ends the
 * client; the remote command is one shell-quoted line (ssh hands it to the remote user's shell).
 */
import type { TmuxHost } from "../../../domain/tmux/TmuxHost.js"

export interface TmuxTransport {
  /** Where the server is, for messages: the socket path, or `<host> (over ssh)`. */
  readonly where: string
  /** The host, for a server reached over ssh; null for a local one. */
  readonly host: TmuxHost | null
  /** The socket path; null for a remote host's default server. */
  readonly socket: string | null
  /** The program and arguments that run `tmux <args>` against this server. */
  readonly command: (args: ReadonlyArray<string>) => {
    readonly file: string
    readonly args: ReadonlyArray<string>
  }
}

export interface SshSettings {
  readonly sshPath: string
  readonly sshConfig: string | null
  /** Bounds ssh's connect (ConnectTimeout, whole seconds, at least 1). */
  readonly connectTimeoutMs: number
}

export const localTransport = (tmuxPath: string, socket: string): TmuxTransport => ({
  where: socket,
  host: null,
  socket,
  command: (args) => ({ file: tmuxPath, args: ["-S", socket, ...args] })
})

/** One argument quoted for a POSIX shell (the remote login shell reads ssh's command line). */
export const shellQuote = (arg: string): string =>
  /^[A-Za-z0-9_./=:%,+-]+$/.test(arg) && !arg.startsWith("-") ? arg : `'${arg.replace(/'/g, `'\\''`)}'`

/** The ssh options before the destination (the destination last, then `--`-free remote command). */
export const sshArgs = (host: TmuxHost, ssh: SshSettings): ReadonlyArray<string> => [
  "-T",
  "-o",
  "BatchMode=yes",
  "-o",
  `ConnectTimeout=${Math.max(1, Math.ceil(ssh.connectTimeoutMs / 1000))}`,
  "-o",
  "ServerAliveInterval=15",
  "-o",
  "ServerAliveCountMax=2",
  ...(ssh.sshConfig === null ? [] : ["-F", ssh.sshConfig]),
  ...(host.port === null ? [] : ["-p", String(host.port)]),
  ...(host.user === null ? [] : ["-l", host.user]),
  host.host
]

export const sshTransport = (host: TmuxHost, ssh: SshSettings): TmuxTransport => ({
  where: `${host.spec} (over ssh)`,
  host,
  socket: null,
  command: (args) => ({
    file: ssh.sshPath,
    // The remote tmux is the one on the remote PATH; TERMPILOT_TMUX names only the local binary.
    args: [...sshArgs(host, ssh), ["tmux", ...args].map(shellQuote).join(" ")]
  })
})

/** ssh's own exit status when it could not connect or authenticate (the remote command's are its own). */
export const SSH_FAILED = 255
