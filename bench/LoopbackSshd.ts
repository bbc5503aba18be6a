/**
 * LoopbackSshd — the pieces of a throwaway sshd that the bench and the tests start alike: the
 * machine's own sshd binary on 127.0.0.1 only, a free port, a fresh host key and client key,
 * key-only auth, every login sent to one `ForceCommand`; waiting until it listens; and an
 * ssh_config alias that reaches it with those keys (for `ssh -F`). Its caller stops it by pid.
 */
import { execFileSync, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"

export const SSHD = "/usr/sbin/sshd"

/** A TCP port free on 127.0.0.1 now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** Fresh `host_key` and `client_key` in `dir`, the client's public key its `authorized_keys`. */
export const makeKeys = (dir: string): void => {
  for (const key of ["host_key", "client_key"])
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, key)])
  execFileSync("cp", [join(dir, "client_key.pub"), join(dir, "authorized_keys")])
  chmodSync(join(dir, "authorized_keys"), 0o600)
}

/**
 * Starts sshd on 127.0.0.1:`port` with the keys of `dir` (makeKeys), every login running
 * `forceCommand`, plus `extra` sshd_config lines; resolves once it listens (10 s at most).
 */
export const startSshd = async (
  dir: string,
  port: number,
  forceCommand: string,
  extra: ReadonlyArray<string> = []
) => {
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
      "PrintMotd no",
      ...extra,
      `ForceCommand ${forceCommand}`
    ].join("\n")
  )
  if (!existsSync("/run/sshd")) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 })
  const child = spawn(SSHD, ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] })
  let log = ""
  child.stderr.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000)
  })
  const deadline = Date.now() + 10_000
  while (!log.includes("Server listening")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, "SIGTERM")
      throw new Error(`sshd did not start: ${log}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return child
}

/** Writes an ssh_config at `path` where `alias` reaches the sshd of `dir` on `port` as root. */
export const writeSshConfig = (path: string, alias: string, port: number, dir: string): string => {
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
}
