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
import { execFileSync, spawn } from "node:child_process"
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
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const SSHD = "/usr/sbin/sshd"
export const REMOTE_HOSTNAME = "tp-remote"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

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

export const startRemoteHost = async (options: RemoteHostOptions = {}): Promise<RemoteHost> => {
  const dir = mkdtempSync(join(tmpdir(), "tp-sshd-"))
  const home = options.tmux?.home ?? join(dir, "home")
  const bin = join(dir, "bin")
  if (options.tmux === undefined) mkdirSync(home)
  mkdirSync(bin)
  // The remote's PATH: every program of /usr/bin but tmux (unless the host has tmux).
  for (const name of readdirSync("/usr/bin"))
    if (name !== "tmux" || options.tmux !== undefined) symlinkSync(join("/usr/bin", name), join(bin, name))
  const tmuxTmpdir = options.tmux === undefined ? "" : ` TMUX_TMPDIR='${options.tmux.tmuxTmpdir}'`
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_key")])
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_key")])
  execFileSync("cp", [join(dir, "client_key.pub"), join(dir, "authorized_keys")])
  chmodSync(join(dir, "authorized_keys"), 0o600)
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
  const config = join(dir, "sshd_config")
  writeFileSync(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host_key")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PubkeyAuthentication yes",
      "PermitRootLogin prohibit-password",
      "StrictModes no",
      "UsePAM no",
      "AcceptEnv LANG LC_*",
      "PrintMotd no",
      "PrintLastLog no",
      `ForceCommand unshare -u ${login}`
    ].join("\n")
  )
  if (!existsSync("/run/sshd")) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 })
  const child = spawn(SSHD, ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] })
  let log = ""
  child.stderr.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000)
  })
  const deadline = Date.now() + 10_000
  for (;;) {
    if (log.includes("Server listening")) break
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`sshd did not start: ${log}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
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
    sshConfig: (alias) => {
      const path = join(dir, `ssh_config.${alias}`)
      writeFileSync(
        path,
        [
          `Host ${alias}`,
          "  HostName 127.0.0.1",
          `  Port ${port}`,
          "  User root",
          `  IdentityFile ${join(dir, "client_key")}`,
          "  IdentitiesOnly yes",
          `  UserKnownHostsFile ${join(dir, "known_hosts")}`,
          "  StrictHostKeyChecking accept-new",
          "  LogLevel ERROR",
          ""
        ].join("\n")
      )
      return path
    },
    stopListening,
    stop: async () => {
      await stopListening()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
