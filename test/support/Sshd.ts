/**
 * Sshd — a throwaway "remote host" for tests: the machine's own sshd binary started by the test on
 * 127.0.0.1 only, on a free port, with a fresh host key, key-only auth and a private
 * authorized_keys, stopped by its pid. Every login lands in a shell with a HOME of its own (holding
 * `.bashrc`), a PATH with no tmux, and its own hostname (a UTS namespace), so what
 * the tests see is the remote shell's and not the local one's; a command given to ssh runs there
 * with `bash -c`. `sshCommand` is the client line a pane runs (the system ssh_config forwards LC_*,
 * as Debian's, Ubuntu's and macOS's do).
 *
 * With `tmux` (a host WITH tmux): tmux is on the remote PATH, and logins get the given HOME and
 * TMUX_TMPDIR, so a private tmux server started there (over this ssh: in the remote's own
 * hostname) is that host's default server. `sshConfig(alias)` writes an ssh_config naming this host
 * as `alias` (its port, the test's own key and known_hosts), for `ssh -F` (TERMPILOT_SSH_CONFIG).
 * `stopListening` stops sshd and ends every connection it carries (an unreachable host).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, makeKeys, startSshd, writeSshConfig } from "../../bench/LoopbackSshd.js"

export const REMOTE_HOSTNAME = "tp-remote"

export interface RemoteHost {
  readonly port: number
  readonly home: string
  /** The ssh client command line that logs in (interactive, with a tty). */
  readonly sshCommand: string
  /** The ssh client command line without a tty, for `… | ssh … 'command'`, the destination last. */
  readonly sshBatch: string
  /** Writes the remote ~/.bashrc. */
  readonly setRc: (rc: string) => void
  /** Writes an ssh_config file in which `alias` is this host (port, key, known_hosts); its path. */
  readonly sshConfig: (alias: string) => string
  /** Stops sshd and ends every connection it carries (the host becomes unreachable). */
  readonly stopListening: () => Promise<void>
  readonly stop: () => Promise<void>
}

export interface RemoteHostOptions {
  /** A host with tmux: logins get this HOME and TMUX_TMPDIR, and tmux on their PATH. */
  readonly tmux?: { readonly home: string; readonly tmuxTmpdir: string }
}

/** The pids of `pid`'s children (Linux /proc), none when it cannot be read. */
const childrenOf = (pid: number): ReadonlyArray<number> => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .split(" ")
      .filter((p) => /^\d+$/.test(p))
      .map(Number)
  } catch {
    return []
  }
}

/** The tmux the test process's PATH finds. */
const tmuxOnPath = (): string => {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const candidate = join(dir, "tmux")
    if (dir !== "" && existsSync(candidate)) return candidate
  }
  throw new Error("no tmux on PATH")
}

export const startRemoteHost = async (options: RemoteHostOptions = {}): Promise<RemoteHost> => {
  const dir = mkdtempSync(join(tmpdir(), "tp-sshd-"))
  const home = options.tmux?.home ?? join(dir, "home")
  const bin = join(dir, "bin")
  if (options.tmux === undefined) mkdirSync(home)
  mkdirSync(bin)
  // The remote's PATH: every program of /usr/bin but tmux (unless the host has tmux).
  for (const name of readdirSync("/usr/bin"))
    if (name !== "tmux") symlinkSync(join("/usr/bin", name), join(bin, name))
  // A host with tmux runs the very tmux the tests run (the CI matrix puts each version first on
  // PATH): a newer client against an older server would refuse commands the client's version has.
  if (options.tmux !== undefined) symlinkSync(tmuxOnPath(), join(bin, "tmux"))
  const tmuxTmpdir = options.tmux === undefined ? "" : ` TMUX_TMPDIR='${options.tmux.tmuxTmpdir}'`
  makeKeys(dir)
  const login = join(dir, "login")
  writeFileSync(
    login,
    [
      "#!/bin/sh",
      `hostname ${REMOTE_HOSTNAME}`,
      `cd '${home}'`,
      `set -- env -i HOME='${home}' PATH='${bin}' TERM="$TERM" USER=root${tmuxTmpdir} LANG=C.UTF-8 LC_TERMPILOT="$LC_TERMPILOT" SSH_CONNECTION="$SSH_CONNECTION" bash`,
      // A command given to ssh runs as the remote would run it; no command: an interactive login.
      `[ -n "$SSH_ORIGINAL_COMMAND" ] && exec "$@" -c "$SSH_ORIGINAL_COMMAND"`,
      `exec "$@" --rcfile '${join(home, ".bashrc")}' -i`
    ].join("\n")
  )
  chmodSync(login, 0o755)
  const port = await freePort()
  const child = await startSshd(dir, port, `unshare -u ${login}`, ["AcceptEnv LANG LC_*", "PrintLastLog no"])
  const sshOptions = [
    `-i '${join(dir, "client_key")}'`,
    `-o UserKnownHostsFile='${join(dir, "known_hosts")}'`,
    "-o StrictHostKeyChecking=accept-new",
    "-o BatchMode=yes",
    `-p ${port}`,
    "root@127.0.0.1"
  ]
  const stopListening = async () => {
    if (child.exitCode !== null || child.pid === undefined) return
    // The connections first (each is a child of the listener), then the listener itself.
    for (const pid of childrenOf(child.pid)) {
      try {
        process.kill(pid, "SIGTERM")
      } catch {
        // already gone
      }
    }
    const exited = new Promise((resolve) => child.once("exit", resolve))
    process.kill(child.pid, "SIGTERM")
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))])
  }
  const sshCommand = ["ssh", "-q", "-tt", ...sshOptions].join(" ")
  const sshBatch = ["ssh", "-q", ...sshOptions].join(" ")
  return {
    port,
    home,
    sshCommand,
    sshBatch,
    setRc: (rc) => writeFileSync(join(home, ".bashrc"), rc),
    sshConfig: (alias) => writeSshConfig(join(dir, `ssh_config.${alias}`), alias, port, dir),
    stopListening,
    stop: async () => {
      await stopListening()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
