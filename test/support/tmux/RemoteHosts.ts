/**
 * RemoteHosts — a loopback "host WITH tmux" for the remote end-to-end tests, as RemoteTmux and
 * RemoteRouting set it up: a private TmuxWorld on its default socket (its own HOME and
 * TMUX_TMPDIR), a loopback sshd (test/support/Sshd.ts) whose logins get that HOME and TMUX_TMPDIR,
 * and that host's default tmux server started OVER that ssh (so it and every pane it forks run in
 * the remote hostname), with bash as its default shell. `remoteId` is TermPilot's id of one of its
 * panes under an alias; `remotePane` opens a recorded bash window there and waits until TermPilot
 * reports it ready.
 */
import { execSync } from "node:child_process"
import type { McpHarness } from "../McpHarness.js"
import { type RemoteHost, startRemoteHost } from "../Sshd.js"
import { type RigPane, settle } from "./TmuxRig.js"
import { TmuxWorld, type WorldPane } from "./TmuxWorld.js"

export interface TmuxHostFixture {
  readonly alias: string
  readonly far: TmuxWorld
  readonly sshd: RemoteHost
}

/** A loopback sshd with tmux, its default server started over ssh with a `seed` session. */
export const startTmuxHost = async (alias: string): Promise<TmuxHostFixture> => {
  const far = TmuxWorld.create({ defaultSocket: true })
  const sshd = await startRemoteHost({ tmux: { home: far.home, tmuxTmpdir: far.tmuxTmpdir } })
  execSync(
    `${sshd.sshBatch} 'tmux -f /dev/null new-session -d -s seed -x 160 -y 50 "exec sleep 100000" && tmux set -g default-shell /bin/bash'`,
    { timeout: 20_000, stdio: "ignore" }
  )
  return { alias, far, sshd }
}

/** Ends the host's tmux server (kill-server, then its pid) and its sshd (by pid). */
export const stopTmuxHost = async (host: TmuxHostFixture | undefined): Promise<void> => {
  await host?.far.close()
  await host?.sshd.stop()
}

/** TermPilot's id of a pane of `host`'s remote server. */
export const remoteId = async (host: TmuxHostFixture, pane: WorldPane): Promise<string> =>
  `tmux@${host.alias}:default:${await host.far.format(pane.paneId, "#{pid}.#{start_time}")}:${pane.paneId}`

/** A remote pane (a new window of the remote's `session`), at a prompt TermPilot saw drawn. */
export const remotePane = async (
  mcp: McpHarness,
  host: TmuxHostFixture,
  session = "main"
): Promise<RigPane> => {
  const { far } = host
  const created = (await far.hasSession(session))
    ? await far.newWindow(session, { argv0: "bash", cwd: far.home })
    : await far.newSession(session, { argv0: "bash", cwd: far.home })
  const pane: RigPane = { ...created, id: await remoteId(host, created) }
  // Drawn before TermPilot watched it: `unknown` until Enter is pressed there (settle does).
  await settle(mcp, pane, "ready", 30_000)
  return pane
}
