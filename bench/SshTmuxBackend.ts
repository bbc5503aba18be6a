/**
 * tmux on another host as a bench backend (issue 24): the private tmux world of TmuxBackend.ts,
 * reached as a HOST over a real loopback ssh — the machine's own sshd started by the bench on
 * 127.0.0.1 only, on a free port, with a throwaway host key, key-only auth, stopped by its pid.
 * Logins get a TMUX_TMPDIR whose `tmux-<uid>/default` is the world's socket, so the world's
 * server is that host's default tmux server. The spawned TermPilot sees no local server, only
 * TERMPILOT_TMUX_HOSTS=<alias> through an ssh_config of its own (TERMPILOT_SSH_CONFIG): every
 * control-protocol byte crosses ssh and sshd, as it would for a server in the next rack. Only the
 * hot paths are measured here (`figures: "hot-paths"`: run_command `true`, list_sessions at 1 / 10
 * / 100 panes); reads and big outputs are the local tmux's figures plus the link's bandwidth.
 */
import { execFileSync, type spawn } from "node:child_process"
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { BenchBackend, BenchWorld, WorldOptions } from "./BackendTypes.js"
import { freePort, makeKeys, startSshd, writeSshConfig } from "./LoopbackSshd.js"
import { tmuxBackend } from "./TmuxBackend.js"

const ALIAS = "tp-bench-host"

const open = async (options: WorldOptions): Promise<BenchWorld> => {
  const world = await tmuxBackend.open(options)
  const dir = mkdtempSync(join(tmpdir(), "tp-bench-ssh-"))
  let sshd: ReturnType<typeof spawn> | null = null
  try {
    // The world's socket is the last path of its env's TERMPILOT_TMUX_SOCKETS.
    const socket = world.env.TERMPILOT_TMUX_SOCKETS!
    const uid = process.getuid?.() ?? 0
    const tmuxTmpdir = join(dir, "tmux-tmp")
    mkdirSync(join(tmuxTmpdir, `tmux-${uid}`), { recursive: true, mode: 0o700 })
    symlinkSync(socket, join(tmuxTmpdir, `tmux-${uid}`, "default"))
    makeKeys(dir)
    const login = join(dir, "login")
    writeFileSync(
      login,
      [
        "#!/bin/sh",
        `exec env HOME='${dir}' PATH='${process.env.PATH ?? "/usr/bin:/bin"}' TMUX_TMPDIR='${tmuxTmpdir}' LANG=C.UTF-8 bash -c "$SSH_ORIGINAL_COMMAND"`
      ].join("\n")
    )
    chmodSync(login, 0o755)
    const port = await freePort()
    const child = await startSshd(dir, port, login)
    sshd = child
    const sshConfig = writeSshConfig(join(dir, "ssh_config"), ALIAS, port, dir)
    // The host key is learnt once here, so no figure pays for it (the person's known_hosts has it).
    execFileSync("ssh", ["-F", sshConfig, ALIAS, "true"], { timeout: 10_000, stdio: "ignore" })
    const ids = world.sessionIds.map((id) =>
      id.replace(/^tmux:.*:(\d+\.\d+:%\d+)$/, `tmux@${ALIAS}:default:$1`)
    )
    return {
      ...world,
      env: {
        ...world.env,
        // No local server: every pane is the host's, over ssh.
        TERMPILOT_TMUX_SOCKETS: join(dir, "no-local-server"),
        TERMPILOT_TMUX_HOSTS: ALIAS,
        TERMPILOT_SSH_CONFIG: sshConfig
      },
      sessionIds: ids,
      close: async () => {
        const exited = new Promise((resolve) => child.once("exit", resolve))
        if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, "SIGTERM")
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))])
        await world.close()
        rmSync(dir, { recursive: true, force: true })
      }
    }
  } catch (error) {
    if (sshd?.pid !== undefined && sshd.exitCode === null) process.kill(sshd.pid, "SIGTERM")
    await world.close()
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}

/**
 * Targets, against local tmux's (5 ms and 12 ms): a remote pane costs what a local one does plus
 * the link. `run_command true` makes about four sequential round trips over the control client
 * (claim with the flags, the keys, the command's marks back, the release), each now relayed by
 * ssh and sshd (two more processes, encrypted both ways): ≈ 1 ms more each on loopback, so 10 ms.
 * list_sessions asks one `list-panes -a` (plus the clients) over one client, whatever the count:
 * one more relayed round trip and 100 rows through ssh, so 20 ms at 100 panes. Over a real
 * network, add the link's RTT per round trip (≈ 4 for run_command, 1–2 for list_sessions).
 */
export const sshTmuxBackend: BenchBackend = {
  name: "tmux over loopback ssh",
  targets: { runTrueMs: 10, list100Ms: 20, deepReadMs: 8 },
  figures: "hot-paths",
  open
}
