/**
 * `termpilot doctor`: the Node.js running TermPilot (22.19 or newer), then read-only checks of the
 * terminal side, for each enabled backend — iTerm2's API socket, the handshake and authentication,
 * the sessions, shell integration per session; tmux found, its servers, a control client attaching,
 * shell integration per pane; each configured host reachable over ssh, its tmux version, a server
 * there and TermPilot's snippet in its panes — each with a remedy. With automatic backends a backend that is not
 * there is skipped; finding none at all fails. `--json` prints the structured report; the exit code
 * is 1 when a check failed.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Layer } from "effect"
import { Command, Flag } from "effect/cli"
import { describeApprovalPolicy } from "../domain/ApprovalPolicy.js"
import { type Check, check, nodeCheck, passed, renderChecks } from "../domain/HealthCheck.js"
import { BackendLive } from "../layers/app/BackendLive.js"
import { iterm2Doctor } from "../layers/backends/iterm2/Doctor.js"
import { tmuxDoctor } from "../layers/backends/tmux/Doctor.js"
import { AppConfigLive } from "../layers/config/AppConfigLive.js"
import { AppConfig } from "../services/AppConfig.js"
import { EXIT_FAILED, emit } from "./chatgpt/Outcome.js"

const LABELS: Readonly<Record<string, string>> = {
  node: "Node.js",
  iterm2_socket: "iTerm2 API socket",
  iterm2_connection: "iTerm2 connection",
  sessions: "sessions",
  shell_integration: "shell integration",
  tmux: "tmux",
  tmux_servers: "tmux servers",
  tmux_control: "tmux control client",
  tmux_shell_integration: "tmux shell integration",
  tmux_remote_shells: "remote and container shells",
  tmux_host_reachable: "tmux host reachable",
  tmux_host_version: "tmux host version",
  tmux_host_server: "tmux host server",
  tmux_host_snippet: "tmux host snippet",
  backends: "terminal backends"
}

const DoctorLive = Layer.mergeAll(BackendLive, NodeServices.layer).pipe(Layer.provideMerge(AppConfigLive))

/** With automatic backends, iTerm2 without its socket is simply not used: skipped, not failed. */
const iterm2Checks = (auto: boolean) =>
  Effect.map(iterm2Doctor, (checks): ReadonlyArray<Check> => {
    const [socket] = checks
    if (!auto || socket === undefined || socket.status !== "failed" || socket.name !== "iterm2_socket") {
      return checks
    }
    return checks.map((c, i) =>
      i === 0 ? check(c.name, "skipped", `${c.detail}: iTerm2 is not used (backends: auto)`) : c
    )
  })

const found = (checks: ReadonlyArray<Check>) =>
  checks.some(
    (c) =>
      (c.name === "iterm2_socket" || c.name === "tmux_servers" || c.name === "tmux_host_server") &&
      c.status === "ok"
  )

export const doctorProgram = Effect.gen(function* () {
  const { backends, tmux, settings } = yield* AppConfig
  const auto = backends.mode === "auto"
  const checks: Array<Check> = [nodeCheck(process.versions.node, process.execPath)]
  if (backends.enabled.includes("iterm2")) checks.push(...(yield* iterm2Checks(auto)))
  if (backends.enabled.includes("tmux")) checks.push(...(yield* tmuxDoctor(tmux, !auto)))
  if (auto && !found(checks)) {
    checks.push(
      check(
        "backends",
        "failed",
        "Neither iTerm2's API nor a tmux server was found, so TermPilot sees no terminal.",
        ["Start tmux (Linux, or any terminal), or iTerm2 with its Python API enabled (macOS)."]
      )
    )
  }
  const ok = passed(checks)
  const approval = describeApprovalPolicy(settings.approval)
  const names = backends.enabled.map((name) => (name === "iterm2" ? "iTerm2" : "tmux")).join(", ")
  return {
    exitCode: ok ? 0 : EXIT_FAILED,
    out: [
      ...renderChecks(`TermPilot terminal doctor (${names})`, checks, (name) => LABELS[name] ?? name),
      `Approvals: ${approval}.`
    ],
    err: [],
    json: {
      ok,
      checks,
      approval: { policy: settings.approval.policy, askIn: settings.approval.askIn, summary: approval }
    }
  }
})

export const doctorCommand = Command.make(
  "doctor",
  {
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print the report as JSON."),
      Flag.withDefault(false)
    )
  },
  ({ json }) =>
    doctorProgram.pipe(
      Effect.provide(DoctorLive),
      Effect.flatMap((outcome) => emit(outcome, json))
    )
).pipe(
  Command.withDescription(
    "Check Node.js and the terminal side, read-only: iTerm2's API socket, handshake and auth, sessions, shell integration; tmux, its servers, a control client, shell integration per pane; each tmux host over ssh: reachable, tmux version, a server, the snippet."
  )
)
