/**
 * A private tmux server as a bench backend: its own socket under a temp dir (never the machine's
 * default server), panes running real bash with TermPilot's own shell integration and nothing in
 * between (no recorder), `history-limit` set to the world's scrollback. A spawned server reaches it
 * through TERMPILOT_BACKENDS=tmux and TERMPILOT_TMUX_SOCKETS. tmux 3.3 keeps no prompt marks, so
 * a freshly spawned server sees each prompt only once it is drawn again: `afterStart` presses
 * Enter in every pane, as the README tells a user to, and waits until the server lists them ready.
 * A person's client is attached in a real pty, so a pane is current. The shell's own time is not
 * observable from outside, so only end-to-end times are reported. The big-output floor is a bare
 * `tmux -C` client that types the command (send-keys -H) and scans its %output for the end mark.
 */
import { execFile, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { promisify } from "node:util"
import * as pty from "node-pty"
import { bashSnippet } from "../src/shell-integration/BashSnippet.js"
import type { BenchBackend, BenchWorld, WorldOptions } from "./BackendTypes.js"
import { baseEnv, callOk, type Started } from "./Spawned.js"

const run = promisify(execFile)

const open = async (options: WorldOptions): Promise<BenchWorld> => {
  const root = mkdtempSync(join(tmpdir(), "tp-bench-tmux-"))
  const home = join(root, "home")
  const tmuxTmp = join(root, "tmux-tmp")
  for (const dir of [home, tmuxTmp]) mkdirSync(dir, { recursive: true })
  const socket = join(root, "sock")
  const snippet = join(root, "integration.bash")
  writeFileSync(snippet, bashSnippet)
  const rc = join(root, "rc.bash")
  writeFileSync(rc, `PS1='bench$ '\nunset HISTFILE\nsource '${snippet}'\n`)
  const shell = `bash --noprofile --rcfile '${rc}' -i`
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TMUX_TMPDIR: tmuxTmp,
    LANG: "C.UTF-8",
    TERM: "xterm-256color"
  }
  const tmux = async (...args: ReadonlyArray<string>) =>
    (
      await run("tmux", ["-S", socket, "-f", "/dev/null", ...args], {
        env,
        timeout: 30_000,
        maxBuffer: 64 << 20
      })
    ).stdout

  await tmux("new-session", "-d", "-s", "bench", "-x", "160", "-y", "50", shell)
  await tmux("set", "-g", "history-limit", String(options.scrollback))
  // The first pane started before history-limit was raised: respawn it so it keeps the scrollback.
  await tmux("respawn-pane", "-k", "-t", "bench", shell)
  for (let i = 1; i < options.sessions; i++) await tmux("new-window", "-d", "-t", "bench:", shell)
  // A person's client, in a real pty, so that a pane is current (get_current_session).
  const person = pty.spawn("tmux", ["-S", socket, "attach", "-t", "bench"], { cols: 160, rows: 50, env })
  const identity = (await tmux("display", "-p", "#{pid}.#{start_time}")).trim()
  const panes = (await tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n").filter((l) => l !== "")
  const ids = panes.map((pane) => `tmux:${socket}:${identity}:${pane}`)
  const paneOf = (sessionId: string) => sessionId.slice(sessionId.lastIndexOf(":") + 1)
  let signal = 0

  const runAsUser = async (sessionId: string, command: string) => {
    const channel = `tpbench-${++signal}`
    const waiting = tmux("wait-for", channel)
    await tmux(
      "send-keys",
      "-t",
      paneOf(sessionId),
      "-l",
      `${command}; tmux -S '${socket}' wait-for -S ${channel}`
    )
    await tmux("send-keys", "-t", paneOf(sessionId), "Enter")
    await waiting
  }

  const afterStart = async (server: Started) => {
    await callOk(server.client, "list_sessions")
    for (const pane of panes) await tmux("send-keys", "-t", pane, "Enter")
    const deadline = Date.now() + 30_000
    for (;;) {
      const data = await callOk(server.client, "list_sessions")
      const sessions = data.sessions as ReadonlyArray<{ execution_readiness: string }>
      if (sessions.length === ids.length && sessions.every((s) => s.execution_readiness === "ready")) return
      if (Date.now() > deadline) throw new Error("tmux panes did not become ready for the spawned server")
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  /** A bare control client: send `command` to the pane, read until its `133;D`; ms between. */
  const bareOutputFloor = async (sessionId: string, command: string) => {
    await runAsUser(sessionId, "true")
    const client = spawn("tmux", ["-S", socket, "-C", "attach", "-t", "bench"], {
      env,
      stdio: ["pipe", "pipe", "ignore"]
    })
    try {
      let sentAt = -1
      let tail = ""
      const ended = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error("bare control client: no end mark in 300 s")),
          300_000
        )
        client.stdout.setEncoding("latin1")
        client.stdout.on("data", (chunk: string) => {
          if (sentAt < 0) return
          const seen = tail + chunk
          if (seen.includes("133;D")) {
            clearTimeout(timer)
            resolve(performance.now() - sentAt)
          }
          tail = seen.slice(-8)
        })
        client.once("exit", () => reject(new Error("bare control client exited")))
      })
      // Let the attach's own output pass before sending.
      await new Promise((resolve) => setTimeout(resolve, 200))
      const hex = Buffer.from(command).toString("hex").match(/../g)!.join(" ")
      sentAt = performance.now()
      client.stdin.write(
        `send-keys -t ${paneOf(sessionId)} -H ${hex}\nsend-keys -t ${paneOf(sessionId)} Enter\n`
      )
      return await ended
    } finally {
      client.kill()
    }
  }

  return {
    bareOutputFloor,
    env: {
      ...baseEnv(home),
      TMUX_TMPDIR: tmuxTmp,
      TERMPILOT_BACKENDS: "tmux",
      TERMPILOT_TMUX_SOCKETS: socket
    },
    sessionIds: ids,
    runAsUser,
    lastCommandSpan: () => undefined,
    afterStart,
    close: async () => {
      person.kill()
      await tmux("kill-server").catch(() => undefined)
      rmSync(root, { recursive: true, force: true })
    }
  }
}

/**
 * Issue 17: `run_command true` ≤ 5 ms median over MCP stdio, list_sessions at 100 panes ≤ 12 ms;
 * read_terminal keeps issue 9's ≤ 8 ms (issue 17 sets none for tmux). Issue 28: list_commands of
 * 200 entries ≤ 10 ms, since it reads the server's own log and asks tmux nothing.
 */
export const tmuxBackend: BenchBackend = {
  name: "tmux",
  targets: { runTrueMs: 5, list100Ms: 12, deepReadMs: 8, listCommands200Ms: 10 },
  commandLogInServer: true,
  open
}
