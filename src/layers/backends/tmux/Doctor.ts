/**
 * The tmux checks behind `termpilot doctor`: tmux found and its version, the servers found on the
 * configured sockets, a control client attaching (read-only, without resizing anything, detached
 * at once), and shell integration per pane with the exact line to add to the shell's rc file.
 * Read-only: it types nothing and changes no option. Every tmux call has a timeout.
 */
import { execFile, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { Effect } from "effect"
import { type Check, check } from "../../../domain/HealthCheck.js"
import { remoteAdvice } from "../../../domain/tmux/RemoteAdvice.js"
import type { TmuxSettings } from "../../../services/AppConfig.js"
import { foregroundCommand } from "./Foreground.js"
import { type HostCheckName, hostsDoctor } from "./HostDoctor.js"

export type TmuxCheckName =
  | HostCheckName
  | "tmux"
  | "tmux_servers"
  | "tmux_control"
  | "tmux_shell_integration"
  | "tmux_remote_shells"
export type TmuxCheck = Check<TmuxCheckName>

interface Ran {
  readonly ok: boolean
  readonly stdout: string
  readonly stderr: string
}

/** One tmux invocation, bounded by `timeoutMs`; never fails (a failure is `ok: false`). */
const tmux = (settings: TmuxSettings, args: ReadonlyArray<string>): Effect.Effect<Ran> =>
  Effect.callback<Ran>((resume) => {
    const child = execFile(
      settings.tmuxPath,
      [...args],
      { timeout: settings.commandTimeoutMs, killSignal: "SIGKILL", encoding: "utf8" },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ ok: error === null, stdout, stderr: stderr || String(error?.message ?? "") }))
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/**
 * Attach a read-only control client that never resizes anything, wait for tmux to answer the
 * attach, then close its stdin so it detaches. True when tmux answered within the timeout.
 */
const controlAttaches = (settings: TmuxSettings, socket: string, session: string): Effect.Effect<boolean> =>
  Effect.callback<boolean>((resume) => {
    const child = spawn(
      settings.tmuxPath,
      ["-S", socket, "-C", "attach-session", "-r", "-f", "ignore-size,no-output", "-t", session],
      {
        stdio: ["pipe", "pipe", "ignore"]
      }
    )
    let seen = ""
    let settled = false
    const finish = (ok: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.stdin.end()
      resume(Effect.succeed(ok))
    }
    const timer = setTimeout(() => {
      finish(false)
      child.kill("SIGKILL")
    }, settings.commandTimeoutMs)
    child.stdout.on("data", (chunk: Buffer) => {
      seen = (seen + chunk.toString("utf8")).slice(-4096)
      if (/^%end \d+ \d+ 0$/m.test(seen)) finish(true)
    })
    child.on("error", () => finish(false))
    child.on("exit", () => finish(false))
    return Effect.sync(() => {
      if (!settled) child.kill("SIGKILL")
    })
  })

interface Server {
  readonly socket: string
  readonly sessions: ReadonlyArray<string>
}

const INSTALL = "Install tmux (Debian/Ubuntu: `sudo apt-get install tmux`; macOS: `brew install tmux`)."

/** What to add for the pane's shell, from its current command. */
export const integrationLine = (command: string): string => {
  const shell = command.replace(/^-/, "")
  if (shell === "fish")
    return "run `termpilot shell-integration fish > ~/.config/fish/termpilot-integration.fish`, then add `source ~/.config/fish/termpilot-integration.fish` at the end of ~/.config/fish/config.fish"
  const name = shell === "zsh" ? "zsh" : "bash"
  return `run \`termpilot shell-integration ${name} > ~/.termpilot-integration.${name}\`, then add \`source ~/.termpilot-integration.${name}\` at the end of ~/.${name}rc`
}

const PANE_FORMAT =
  "#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}\t#{pane_current_command}\t#{@termpilot_tokens}\t#{pane_pid}"

/**
 * Runs the tmux checks in order, this machine's then each configured host's (HostDoctor.ts);
 * later checks are skipped when an earlier one makes them meaningless. With `required` false
 * (automatic backends), tmux missing is a skip, not a failure; with hosts configured, no local
 * server is only a warning.
 */
export const tmuxDoctor = (settings: TmuxSettings, required: boolean) =>
  Effect.map(
    Effect.all(
      [localDoctor(settings, required && (settings.hosts ?? []).length === 0), hostsDoctor(settings)],
      {
        concurrency: "unbounded"
      }
    ),
    ([local, hosts]): ReadonlyArray<TmuxCheck> => [...local, ...hosts]
  )

const localDoctor = (settings: TmuxSettings, required: boolean) =>
  Effect.gen(function* () {
    const checks: Array<TmuxCheck> = []
    const skipRest = (from: ReadonlyArray<TmuxCheckName>) =>
      from.map((name) => check(name, "skipped", "Skipped: an earlier check failed."))
    const absent = required ? "failed" : "skipped"

    const version = yield* tmux(settings, ["-V"])
    if (!version.ok) {
      checks.push(check("tmux", absent, `tmux not found or not runnable (${settings.tmuxPath})`, [INSTALL]))
      return [...checks, ...skipRest(["tmux_servers", "tmux_control", "tmux_shell_integration"])]
    }
    checks.push(check("tmux", "ok", `${version.stdout.trim()} (${settings.tmuxPath})`))

    const servers: Array<Server> = []
    for (const socket of settings.sockets) {
      if (!existsSync(socket)) continue
      const listed = yield* tmux(settings, ["-S", socket, "list-sessions", "-F", "#{session_id}"])
      if (listed.ok) servers.push({ socket, sessions: listed.stdout.split("\n").filter((l) => l !== "") })
    }
    if (servers.length === 0) {
      checks.push(
        check(
          "tmux_servers",
          required ? "failed" : "warning",
          `No tmux server is running (looked at ${settings.sockets.join(", ")})${
            (settings.hosts ?? []).length > 0 ? "; the configured hosts are checked below, over ssh" : ""
          }`,
          [
            "Start tmux (`tmux new -s work`), or name other servers' sockets in TERMPILOT_TMUX_SOCKETS or the config file's tmux.sockets."
          ]
        )
      )
      return [...checks, ...skipRest(["tmux_control", "tmux_shell_integration"])]
    }
    checks.push(
      check(
        "tmux_servers",
        "ok",
        servers.map((s) => `${s.socket} (${s.sessions.length} session(s))`).join(", ")
      )
    )

    const refused: Array<string> = []
    for (const server of servers) {
      const first = server.sessions[0]
      if (first !== undefined && !(yield* controlAttaches(settings, server.socket, first)))
        refused.push(server.socket)
    }
    checks.push(
      refused.length === 0
        ? check("tmux_control", "ok", "A control client attaches to every server (read-only, no resize)")
        : check("tmux_control", "failed", `A control client could not attach to ${refused.join(", ")}`, [
            "Check that tmux is 3.2 or newer and that these sockets belong to you."
          ])
    )

    const without: Array<string> = []
    const outdated: Array<string> = []
    const remote: Array<string> = []
    let total = 0
    for (const server of servers) {
      const panes = yield* tmux(settings, ["-S", server.socket, "list-panes", "-a", "-F", PANE_FORMAT])
      for (const line of panes.stdout.split("\n")) {
        const [paneId, where, command, tokens, panePid] = line.split("\t")
        if (paneId === undefined || where === undefined) continue
        total++
        const held = foregroundCommand(Number(panePid))
        const advice = held === null ? null : remoteAdvice(held.name, held.argv)
        if (advice !== null) remote.push(`${where} (${paneId}): ${advice}`)
        const entries = (tokens ?? "")
          .trim()
          .split(" ")
          .filter((t) => t !== "")
        if (entries.length === 0)
          without.push(`${where} (${paneId}, ${command ?? "?"}): ${integrationLine(command ?? "")}`)
        else if (!entries.at(-1)!.includes(":")) outdated.push(`${where} (${paneId}, ${command ?? "?"})`)
      }
    }
    const advice = [
      ...without,
      ...outdated.map(
        (pane) =>
          `${pane}: its integration is older than this TermPilot (no prompt numbers); re-create the snippet file with \`termpilot shell-integration bash\` (or zsh)`
      ),
      "Then start a new shell in the pane (or source the rc file)."
    ]
    checks.push(
      without.length === 0 && outdated.length === 0
        ? check("tmux_shell_integration", "ok", `All ${total} pane(s) run TermPilot's shell integration`)
        : check(
            "tmux_shell_integration",
            "warning",
            without.length > 0
              ? `${without.length} of ${total} pane(s) have not loaded TermPilot's shell integration; run_command refuses them unless another terminal's OSC 133 integration marks their prompts`
              : `${outdated.length} of ${total} pane(s) run an older TermPilot shell integration; run_command refuses them`,
            advice
          )
    )
    if (remote.length > 0)
      checks.push(
        check(
          "tmux_remote_shells",
          "warning",
          `${remote.length} pane(s) run a remote login or a container; TermPilot reaches the shell there only when it runs TermPilot's snippet`,
          remote
        )
      )
    return checks
  })
