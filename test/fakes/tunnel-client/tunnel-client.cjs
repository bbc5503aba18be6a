#!/usr/bin/env node
/**
 * Fake OpenAI `tunnel-client` for tests. Appends one JSON line per call to $FAKE_TUNNEL_RECORD:
 * { argv, pid, envNames, keyRef: { name, set } } — environment variable NAMES only, never values.
 * Answers like the real one (`runtimes --json connect|status|stop`, `--version`; JSON payload on
 * stdout even on a non-zero exit) per $FAKE_TUNNEL_SCENARIO:
 *   healthy (default) | unhealthy | stopped | error | malformed | wrong_shape | hang | slow_ready
 *   | unknown_alias | version_fails
 */
"use strict"
const fs = require("node:fs")

const argv = process.argv.slice(2)
const scenario = process.env.FAKE_TUNNEL_SCENARIO || "healthy"
const recordFile = process.env.FAKE_TUNNEL_RECORD
const TUNNEL_ID_RE = /^tunnel_[0-9a-f]{32}$/
const DEFAULT_TUNNEL = "tunnel_0123456789abcdef0123456789abcdef"

const flagValue = (name) => {
  const i = argv.indexOf(name)
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : undefined
}
const keyRefArg = flagValue("--runtime-api-key")
const keyName = keyRefArg?.startsWith("env:") ? keyRefArg.slice(4) : "CONTROL_PLANE_API_KEY"

const previous = () => {
  if (!recordFile || !fs.existsSync(recordFile)) return []
  return fs
    .readFileSync(recordFile, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line))
}
const history = previous()
if (recordFile) {
  const entry = {
    argv,
    pid: process.pid,
    envNames: Object.keys(process.env).sort(),
    keyRef: {
      name: keyName,
      set: typeof process.env[keyName] === "string" && process.env[keyName].trim() !== ""
    }
  }
  fs.appendFileSync(recordFile, `${JSON.stringify(entry)}\n`)
}

// writeSync: output must be complete before process.exit, whatever kind of pipe stdout is.
const out = (text) => fs.writeSync(1, text)
const fail = (message, code = 1) => {
  fs.writeSync(2, `Error: ${message}\n`)
  process.exit(code)
}
const hang = () => {
  process.on("SIGTERM", () => {}) // like a wedged process: only SIGKILL ends it
  setInterval(() => {}, 1000)
}

if (scenario === "hang") {
  hang()
} else if (argv.length === 1 && argv[0] === "--version") {
  if (scenario === "version_fails") fail("this build is broken", 3)
  out("tunnel-client version 9.9.9-fake\n")
  process.exit(0)
} else {
  runtimes()
}

function runtimes() {
  if (argv[0] !== "runtimes") fail(`unknown command "${argv[0]}" for "tunnel-client"`)
  let json = false
  const rest = []
  for (const arg of argv.slice(1)) {
    if (arg === "--json") json = true
    else rest.push(arg)
  }
  const [sub, ...args] = rest
  if (!json) fail("this fake only speaks --json")
  const lastConnect = [...history].reverse().find((h) => h.argv.includes("connect"))
  const knownTunnel = () => {
    if (!lastConnect) return DEFAULT_TUNNEL
    const i = lastConnect.argv.indexOf("--tunnel-id")
    return lastConnect.argv[i + 1]
  }
  const emit = (payload, code = 0) => {
    out(`${JSON.stringify(payload, null, 2)}\n`)
    process.exit(code)
  }
  const base = (alias) => ({
    alias,
    tunnel_id: knownTunnel(),
    admin_profile: "default",
    local: { issues: [], profile: { exists: true } },
    control_plane_poll_health: { ok: true },
    remote_lookup_attempted: false,
    next_steps: [
      `tunnel-client doctor --profile ${alias} --explain`,
      `tunnel-client runtimes status ${alias}`
    ]
  })
  const running = {
    runtime_state: "ready",
    process_running: true,
    healthy: true,
    ready: true,
    ui_url: "http://127.0.0.1:8080/ui",
    mode: "process",
    error: ""
  }
  const errorPayload = (alias) => ({
    ...base(alias),
    runtime_state: "stopped",
    process_running: false,
    healthy: false,
    ready: false,
    error: "tunnel lookup failed: 404 tunnel not found",
    remote_error: "tunnel lookup failed: 404 tunnel not found",
    stale: true,
    repair_actions: [
      {
        id: "verify-tunnel",
        command: "tunnel-client admin tunnels get tunnel_…",
        reason: "the tunnel id is not visible to this key"
      }
    ]
  })

  if (scenario === "malformed") {
    out("Connected termpilot using process mode {not json\n")
    process.exit(0)
  }
  if (scenario === "wrong_shape") emit({ alias: "termpilot", process_running: "yes", healthy: 1 })

  if (sub === "connect") {
    const alias = flagValue("--alias")
    const tunnelId = flagValue("--tunnel-id")
    const command = flagValue("--mcp-command")
    if (!alias) fail('required flag(s) "alias" not set')
    if (!tunnelId || !TUNNEL_ID_RE.test(tunnelId)) fail("tunnel id must match tunnel_<32 lowercase hex>")
    if (!command) fail("connect requires --mcp-server-url or --mcp-command")
    if (!keyRefArg || !(keyRefArg.startsWith("env:") || keyRefArg.startsWith("file:"))) {
      fail("runtime api_key must be an env:NAME or file:/path reference")
    }
    const payload = { ...base(alias), tunnel: { id: tunnelId, name: alias }, launched: true, started: true }
    delete payload.tunnel_id
    if (scenario === "error") emit(errorPayload(alias), 2)
    if (scenario === "unhealthy" || !process.env[keyName]) {
      emit(
        {
          ...payload,
          runtime_state: "starting",
          process_running: true,
          healthy: false,
          ready: false,
          error: process.env[keyName] ? "" : `environment variable ${keyName} is not set`,
          repair_actions: [
            {
              id: "inspect-log",
              command: `tunnel-client runtimes status ${alias}`,
              reason: "/healthz did not answer ok"
            }
          ]
        },
        2
      )
    }
    emit({ ...payload, ...running })
  }

  if (sub === "status" || sub === "stop") {
    if (args.length !== 1) fail(`accepts 1 arg(s), received ${args.length}`)
    const alias = args[0]
    if (scenario === "unknown_alias") fail(`alias ${alias} is not known; run create or connect first`)
    if (scenario === "error") emit(errorPayload(alias), 2)
    if (sub === "stop") {
      emit({
        ...base(alias),
        runtime_state: "stopped",
        process_running: false,
        healthy: false,
        ready: false,
        already_stopped: false,
        stopped: true,
        stop_error: ""
      })
    }
    if (scenario === "stopped") {
      emit({
        ...base(alias),
        runtime_state: "stopped",
        process_running: false,
        healthy: false,
        ready: false,
        ui_url: "",
        error: ""
      })
    }
    if (scenario === "unhealthy") {
      emit({
        ...base(alias),
        runtime_state: "starting",
        process_running: true,
        healthy: false,
        ready: false,
        error: "",
        repair_actions: [
          {
            id: "restart",
            command: `tunnel-client runtimes connect --alias ${alias}`,
            reason: "/healthz is failing"
          }
        ]
      })
    }
    if (scenario === "slow_ready") {
      const earlier = history.filter((h) => h.argv.includes("status")).length
      if (earlier < 2) emit({ ...base(alias), ...running, runtime_state: "healthy", ready: false })
    }
    emit({ ...base(alias), ...running })
  }
  fail(`unknown command "${sub}" for "tunnel-client runtimes"`)
}
