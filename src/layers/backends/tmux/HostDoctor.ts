/**
 * The checks of `termpilot doctor` for each configured host (tmux on other hosts): reachable over
 * ssh (BatchMode: never a prompt), the remote tmux and its version, a tmux server running there,
 * and TermPilot's snippet announcing its tokens in some pane (`@termpilot_tokens`). Each is its own
 * check line naming the host, with the fix. Two ssh runs per host, exactly as TermPilot runs tmux
 * there (Transport.ts): `tmux -V`, then `tmux list-panes -a`; each is bounded by the host
 * timeout (TERMPILOT_TMUX_TIMEOUT_MS, ssh's ConnectTimeout under it), so a host that hangs is one
 * failed line after at most that, its other checks skipped. The hosts are checked at once.
 * Read-only: it starts no server, types nothing and sets no option there.
 */
import { execFile } from "node:child_process"
import { Effect } from "effect"
import { type Check, check } from "../../../domain/HealthCheck.js"
import { installOverSsh } from "../../../domain/tmux/RemoteAdvice.js"
import type { TmuxHost } from "../../../domain/tmux/TmuxHost.js"
import type { TmuxSettings } from "../../../services/AppConfig.js"
import { childEnv } from "./Connection.js"
import { SSH_FAILED, type SshSettings, shellQuote, sshTransport } from "./Transport.js"

export type HostCheckName =
  | "tmux_host_reachable"
  | "tmux_host_version"
  | "tmux_host_server"
  | "tmux_host_snippet"

interface Ran {
  readonly code: number | null
  readonly timedOut: boolean
  readonly stdout: string
  readonly stderr: string
}

const run = (file: string, args: ReadonlyArray<string>, timeoutMs: number): Effect.Effect<Ran> =>
  Effect.callback<Ran>((resume) => {
    const child = execFile(
      file,
      [...args],
      {
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        env: childEnv(),
        encoding: "utf8",
        maxBuffer: 4 * 1024 * 1024
      },
      (error, stdout, stderr) =>
        resume(
          Effect.succeed({
            code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
            timedOut: error?.killed === true || (error !== null && error.signal != null),
            stdout,
            stderr: stderr || (error !== null && typeof error.code === "string" ? error.message : "")
          })
        )
    )
    // Nothing is sent to the remote command; closing stdin keeps ssh from waiting on the doctor's.
    child.stdin?.end()
    return Effect.sync(() => {
      child.kill("SIGKILL")
    })
  })

/** The last lines of a program's stderr, for a message. */
const tail = (text: string) => text.trim().split("\n").slice(-2).join(" ").slice(0, 300)

/** `ssh [-F config] [-p port] [user@]host`, as a person would type it to reach the host. */
export const sshLine = (host: TmuxHost, ssh: Omit<SshSettings, "connectTimeoutMs">): string =>
  [
    ...(ssh.sshConfig === null ? [] : ["-F", shellQuote(ssh.sshConfig)]),
    ...(host.port === null ? [] : ["-p", String(host.port)]),
    host.user === null ? host.host : `${host.user}@${host.host}`
  ].join(" ")

const PANE_FORMAT =
  "#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}\t#{pane_current_command}\t#{@termpilot_tokens}"

/** The oldest tmux TermPilot drives (control mode with `-f ignore-size`, `set -p`). */
const tooOld = (version: string): boolean => {
  const match = /(\d+)\.(\d+)/.exec(version)
  if (match === null) return false
  const [major, minor] = [Number(match[1]), Number(match[2])]
  return major < 3 || (major === 3 && minor < 2)
}

/** The four checks of one host, in order; once one fails, the later ones are skipped. */
export const hostDoctor = (
  settings: TmuxSettings,
  host: TmuxHost
): Effect.Effect<ReadonlyArray<Check<HostCheckName>>> =>
  Effect.gen(function* () {
    const ssh = { sshPath: settings.sshPath ?? "ssh", sshConfig: settings.sshConfig ?? null }
    const transport = sshTransport(host, { ...ssh, connectTimeoutMs: settings.commandTimeoutMs })
    const name = host.spec
    const line = sshLine(host, ssh)
    const seconds = `${settings.commandTimeoutMs / 1000} s`
    const checks: Array<Check<HostCheckName>> = []
    const skip = (from: ReadonlyArray<HostCheckName>) =>
      from.map((n) => check(n, "skipped", `${name}: skipped, an earlier check of this host failed.`))
    const tmux = (args: ReadonlyArray<string>) => {
      const { file, args: full } = transport.command(args)
      return run(file, full, settings.commandTimeoutMs)
    }

    const version = yield* tmux(["-V"])
    if (version.timedOut || version.code === SSH_FAILED || version.code === null) {
      checks.push(
        check(
          "tmux_host_reachable",
          "failed",
          version.timedOut
            ? `${name}: no answer over ssh within ${seconds} (TERMPILOT_TMUX_TIMEOUT_MS)`
            : `${name}: ssh failed: ${tail(version.stderr) || `exit ${version.code ?? "?"}`}`,
          [
            `Check that \`ssh ${line} true\` logs in without any prompt (TermPilot runs ssh with BatchMode=yes: keys or an agent, the host key already in known_hosts).`,
            "A host that is down or hangs is listed in list_sessions' `unavailable` and never delays the others."
          ]
        )
      )
      return [...checks, ...skip(["tmux_host_version", "tmux_host_server", "tmux_host_snippet"])]
    }
    checks.push(check("tmux_host_reachable", "ok", `${name}: ssh logs in without a prompt (BatchMode)`))

    const reported = version.stdout.trim().split("\n").at(-1) ?? ""
    if (version.code !== 0 || !/^tmux /.test(reported)) {
      checks.push(
        check(
          "tmux_host_version",
          "failed",
          `${name}: no tmux on the remote PATH (${tail(version.stderr) || `exit ${version.code}`})`,
          [
            `Install tmux 3.2 or newer there (Debian/Ubuntu: \`ssh ${line} sudo apt-get install tmux\`), on the PATH of a non-interactive login (\`ssh ${line} 'command -v tmux'\`).`
          ]
        )
      )
      return [...checks, ...skip(["tmux_host_server", "tmux_host_snippet"])]
    }
    if (tooOld(reported)) {
      checks.push(
        check(
          "tmux_host_version",
          "failed",
          `${name}: ${reported} is older than TermPilot needs (3.2 or newer)`,
          [`Install tmux 3.2 or newer on ${name}.`]
        )
      )
      return [...checks, ...skip(["tmux_host_server", "tmux_host_snippet"])]
    }
    checks.push(check("tmux_host_version", "ok", `${name}: ${reported}`))

    const panes = yield* tmux(["list-panes", "-a", "-F", PANE_FORMAT])
    if (panes.code !== 0) {
      const detail = tail(panes.stderr)
      const noServer =
        !panes.timedOut && /no server running|error connecting|No such file or directory/.test(detail)
      checks.push(
        noServer
          ? check(
              "tmux_host_server",
              "warning",
              `${name}: no tmux server is running there (the host contributes no sessions; TermPilot never starts one)`,
              [
                `Start one there: \`ssh ${line}\`, then \`tmux new -s work\` (detach with C-b d; it keeps running).`
              ]
            )
          : check(
              "tmux_host_server",
              "failed",
              panes.timedOut
                ? `${name}: tmux list-panes did not answer within ${seconds}`
                : `${name}: tmux list-panes failed: ${detail || `exit ${panes.code ?? "?"}`}`,
              [`Run \`ssh ${line} tmux list-panes -a\` to see why.`]
            )
      )
      return [...checks, ...skip(["tmux_host_snippet"])]
    }
    const rows = panes.stdout
      .split("\n")
      .map((l) => l.split("\t"))
      .filter((r) => /^%\d+$/.test(r[0] ?? ""))
    checks.push(check("tmux_host_server", "ok", `${name}: a tmux server with ${rows.length} pane(s)`))

    const without = rows.filter((r) => (r[3] ?? "").trim() === "")
    const install = [
      `Install the snippet there with one line from this machine: ${installOverSsh(line)}`,
      "Then start a new shell in the remote panes (or source ~/.bashrc there); zsh or fish: `termpilot shell-integration zsh` or `fish`, likewise."
    ]
    checks.push(
      rows.length > 0 && without.length === 0
        ? check("tmux_host_snippet", "ok", `${name}: all ${rows.length} pane(s) announce TermPilot's snippet`)
        : without.length < rows.length
          ? check(
              "tmux_host_snippet",
              "warning",
              `${name}: ${without.length} of ${rows.length} pane(s) have not loaded TermPilot's snippet (${without
                .slice(0, 5)
                .map((r) => `${r[1]} ${r[0]}, ${r[2]}`)
                .join("; ")}${without.length > 5 ? "; …" : ""}); run_command refuses them`,
              [
                "Start a new shell in those panes (or source ~/.bashrc there): the snippet is installed on this host."
              ]
            )
          : check(
              "tmux_host_snippet",
              "warning",
              `${name}: no pane announces TermPilot's snippet (@termpilot_tokens); run_command refuses every pane there`,
              install
            )
    )
    return checks
  })

/** Every configured host's checks, the hosts checked at once, reported in configuration order. */
export const hostsDoctor = (settings: TmuxSettings): Effect.Effect<ReadonlyArray<Check<HostCheckName>>> =>
  Effect.map(
    Effect.forEach(settings.hosts ?? [], (host) => hostDoctor(settings, host), { concurrency: "unbounded" }),
    (all) => all.flat()
  )
