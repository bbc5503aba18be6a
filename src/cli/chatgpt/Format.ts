/**
 * Pure rendering of tunnel-client payloads and failures for people and scripts: the status block
 * (only fields that are present — never "None"/"undefined"), the runtime verdict, repair actions
 * and next steps, remedies per failure reason, and the ChatGPT next steps after setup.
 */
import type { RuntimePayload, TunnelClientError } from "../../services/TunnelClient.js"

export const BREW_INSTALL = "brew install openai/tools/tunnel-client"

const present = (value: string | null | undefined): value is string =>
  typeof value === "string" && value.trim() !== ""
const yesNo = (value: boolean | null | undefined) =>
  value === true ? "yes" : value === false ? "no" : undefined

export const tunnelIdOf = (payload: RuntimePayload): string | undefined =>
  present(payload.tunnel_id) ? payload.tunnel_id : present(payload.tunnel?.id) ? payload.tunnel.id : undefined

/** The fields a person or script cares about, omitting absent ones. */
export const runtimeSummary = (payload: RuntimePayload): Record<string, string | boolean> => {
  const summary: Record<string, string | boolean> = {}
  const put = (key: string, value: string | boolean | null | undefined) => {
    if (typeof value === "boolean" || present(value)) summary[key] = value
  }
  put("alias", payload.alias)
  put("tunnel_id", tunnelIdOf(payload))
  put("runtime_state", payload.runtime_state)
  put("process_running", payload.process_running)
  put("healthy", payload.healthy)
  put("ready", payload.ready)
  put("mode", payload.mode)
  put("ui_url", payload.ui_url)
  return summary
}

export const statusLines = (payload: RuntimePayload): Array<string> => {
  const rows: Array<readonly [string, string | undefined]> = [
    ["Alias", present(payload.alias) ? payload.alias : undefined],
    ["Tunnel", tunnelIdOf(payload)],
    ["Runtime state", present(payload.runtime_state) ? payload.runtime_state : undefined],
    ["Process running", yesNo(payload.process_running)],
    ["Healthy", yesNo(payload.healthy)],
    ["Ready", yesNo(payload.ready)],
    ["Mode", present(payload.mode) ? payload.mode : undefined],
    ["Local UI", present(payload.ui_url) ? payload.ui_url : undefined]
  ]
  return rows.flatMap(([label, value]) => (value === undefined ? [] : [`  ${label}: ${value}`]))
}

export interface Verdict {
  readonly ok: boolean
  /** Why it is not ok (empty when ok). */
  readonly problem: string
}

/**
 * Running and healthy; with `requireReady`, also not reported as not ready.
 * Anything not reported as a strict `true` counts as not running / not healthy.
 */
export const runtimeVerdict = (payload: RuntimePayload, requireReady: boolean): Verdict => {
  if (payload.process_running !== true)
    return { ok: false, problem: "the tunnel runtime process is not running" }
  if (payload.healthy !== true) return { ok: false, problem: "the tunnel runtime is running but not healthy" }
  if (requireReady && payload.ready === false) {
    return {
      ok: false,
      problem: "the tunnel runtime is healthy but not ready (its MCP probe has not passed)"
    }
  }
  return { ok: true, problem: "" }
}

/** tunnel-client's own explanation: error texts, repair actions, next steps. */
export const adviceLines = (payload: RuntimePayload | undefined): Array<string> => {
  if (payload === undefined) return []
  const lines: Array<string> = []
  for (const said of new Set([payload.error, payload.remote_error, payload.stop_error].filter(present))) {
    lines.push(`tunnel-client says: ${said}`)
  }
  const actions = (payload.repair_actions ?? []).flatMap((action) => {
    if (typeof action === "string") return present(action) ? [`  - ${action}`] : []
    const text = [action.reason, action.command].filter(present)
    return text.length === 0 ? [] : [`  - ${text.join(": ")}`]
  })
  if (actions.length > 0) lines.push("Suggested repairs:", ...actions)
  const steps = (payload.next_steps ?? []).filter(present)
  if (steps.length > 0) lines.push("Next steps:", ...steps.map((step) => `  - ${step}`))
  return lines
}

export const adviceJson = (payload: RuntimePayload | undefined) =>
  payload === undefined
    ? {}
    : {
        ...(payload.repair_actions && payload.repair_actions.length > 0
          ? { repair_actions: payload.repair_actions }
          : {}),
        ...(payload.next_steps && payload.next_steps.length > 0 ? { next_steps: payload.next_steps } : {})
      }

/** What to do about a failure, by reason. */
export const remedyFor = (error: TunnelClientError, alias: string): Array<string> => {
  switch (error.reason) {
    case "not_found":
      return [
        `Install tunnel-client: ${BREW_INSTALL}`,
        "or pass its location with --tunnel-client /path/to/tunnel-client."
      ]
    case "failed_to_start":
      return ["Check that the file is a working tunnel-client executable for this machine."]
    case "timeout":
      return [
        "Retry with a larger --timeout, and look at the runtime directly:",
        `  tunnel-client runtimes status ${alias}`
      ]
    case "bad_output":
      return ["This tunnel-client may be too old or too new for TermPilot; check `tunnel-client --version`."]
    case "exited_nonzero":
      return []
  }
}

export const failureLines = (error: TunnelClientError, alias: string): Array<string> => [
  `Error: ${error.detail}`,
  ...(error.payload === undefined ? [] : statusLines(error.payload)),
  ...adviceLines(error.payload),
  ...remedyFor(error, alias)
]

export const failureJson = (error: TunnelClientError, alias: string) => ({
  ok: false,
  error: {
    reason: error.reason,
    message: error.detail,
    ...(error.exitCode === undefined ? {} : { exit_code: error.exitCode })
  },
  ...(error.payload === undefined ? {} : { runtime: runtimeSummary(error.payload) }),
  ...adviceJson(error.payload),
  remedy: remedyFor(error, alias).join("\n") || null
})

export const keyMissingRemedy = (name: string): Array<string> => [
  `Put ${name}=<your runtime key> in a .env file and load it into this shell:`,
  "  set -a; source .env; set +a",
  `or export it directly: export ${name}=…`,
  "(.env is not loaded automatically, by TermPilot or by tunnel-client.)"
]

export const chatgptNextSteps = (tunnelId: string): Array<string> => [
  "Next, in ChatGPT:",
  '  1. Open ChatGPT → Settings and create a developer-mode app (for example "TermPilot").',
  "  2. Under Connection choose Tunnel (not Server URL).",
  `  3. Select or paste this tunnel id: ${tunnelId}`,
  "  4. Keep this runtime running while ChatGPT uses TermPilot (check: termpilot chatgpt status)."
]
