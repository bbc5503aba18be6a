/**
 * The iTerm2 health checks behind `termpilot doctor` (the tmux ones are ../tmux/Doctor.ts): iTerm2's
 * API socket, the handshake and authentication, the session inventory, and shell integration per
 * session. Read-only: it sends no text and changes no setting.
 */
import { Effect, FileSystem, Result } from "effect"
import { type Check, check } from "../../../domain/HealthCheck.js"
import { AppConfig } from "../../../services/AppConfig.js"
import { Terminal } from "../../../services/Terminal.js"
import { Iterm2Connection, type Iterm2Error } from "./ConnectionService.js"

export type Iterm2Check = Check<"iterm2_socket" | "iterm2_connection" | "sessions" | "shell_integration">

const ENABLE_API =
  "Start iTerm2 and enable its Python API: iTerm2 → Settings → General → Magic → Enable Python API."

const remedyFor = (error: Iterm2Error): string => {
  switch (error.reason) {
    case "not_running":
    case "api_disabled":
      return ENABLE_API
    case "auth_denied":
      return "Allow TermPilot when iTerm2 asks, or turn on “Allow all apps to connect” in iTerm2 → Settings → General → Magic. If macOS blocked Automation for your terminal, allow it in System Settings → Privacy & Security → Automation."
    case "timeout":
      return "iTerm2 did not answer in time: check that it is not stuck on a modal dialog, then try again."
    default:
      return "Update iTerm2 to 3.4 or newer; if it persists, report the detail above."
  }
}

const skipped = (name: Iterm2Check["name"]): Iterm2Check =>
  check(name, "skipped", "Skipped: an earlier check failed.")

/** Runs every check in order; later checks are skipped when an earlier one makes them meaningless. */
export const iterm2Doctor = Effect.gen(function* () {
  const config = yield* AppConfig
  const fs = yield* FileSystem.FileSystem
  const conn = yield* Iterm2Connection
  const terminal = yield* Terminal
  const path = config.iterm2.socketPath
  const checks: Array<Iterm2Check> = []

  const present = yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false))
  checks.push(
    present
      ? check("iterm2_socket", "ok", `API socket found at ${path}`)
      : check("iterm2_socket", "failed", `No iTerm2 API socket at ${path}`, [
          ENABLE_API,
          ...(process.platform === "darwin"
            ? []
            : ["iTerm2 runs on macOS only; elsewhere TermPilot uses tmux (see the tmux checks)."])
        ])
  )
  if (!present) {
    return [...checks, skipped("iterm2_connection"), skipped("sessions"), skipped("shell_integration")]
  }

  const version = yield* Effect.result(conn.protocolVersion)
  if (Result.isFailure(version)) {
    checks.push(check("iterm2_connection", "failed", version.failure.message, [remedyFor(version.failure)]))
    return [...checks, skipped("sessions"), skipped("shell_integration")]
  }
  checks.push(
    check(
      "iterm2_connection",
      "ok",
      `Handshake and authentication accepted (protocol ${version.success.join(".")})`
    )
  )

  const sessions = yield* Effect.result(terminal.listSessions)
  if (Result.isFailure(sessions)) {
    checks.push(check("sessions", "failed", sessions.failure.message, [ENABLE_API]))
    return [...checks, skipped("shell_integration")]
  }
  const list = sessions.success
  checks.push(
    list.length > 0
      ? check("sessions", "ok", `${list.length} session(s) open`)
      : check("sessions", "warning", "iTerm2 has no open sessions", ["Open a terminal window in iTerm2."])
  )
  const without = list.filter((s) => s.execution_readiness === "shell_integration_required")
  const label = (s: (typeof list)[number]) =>
    `${s.session_id} (${s.session_title ?? s.tab_title ?? "untitled"})`
  checks.push(
    list.length === 0
      ? skipped("shell_integration")
      : without.length === 0
        ? check("shell_integration", "ok", `All ${list.length} session(s) report shell integration`)
        : check(
            "shell_integration",
            "warning",
            `${without.length} of ${list.length} session(s) have no shell integration (run_command refuses them): ${without.map(label).join(", ")}`,
            ["In those shells run iTerm2 → Install Shell Integration, then open a new session."]
          )
  )
  return checks
})
