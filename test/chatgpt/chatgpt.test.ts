/**
 * `termpilot chatgpt setup|status|doctor|disconnect` against a fake tunnel-client run as a real
 * subprocess: exact argv, payload handling per scenario, refusals before any call, timeouts.
 */
import { dirname } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makeWorld, runChatgpt, type World, worldEnv } from "./harness.js"
import { splitShellWords } from "./splitShellWords.js"

const TUNNEL = "tunnel_0123456789abcdef0123456789abcdef"
const KEY = { CONTROL_PLANE_API_KEY: "rk-test-value" }

let world: World
beforeEach(() => {
  world = makeWorld()
})
afterEach(() => world.cleanup())

const env = (scenario: string, extra: Record<string, string | undefined> = KEY) => ({
  ...worldEnv(world, scenario),
  CONTROL_PLANE_API_KEY: undefined,
  ...extra
})

const noPlaceholders = (text: string) => {
  expect(text).not.toMatch(/\bNone\b|\bundefined\b|\bnull\b/)
}

describe("setup", () => {
  it("connects with the exact documented argv, then checks status, and prints the ChatGPT steps", async () => {
    const result = await runChatgpt(world, ["setup", "--tunnel-id", `  ${TUNNEL}\n`], env("healthy"))
    expect(result.exitCode).toBe(0)
    const calls = world.records()
    expect(calls.map((c) => c.argv.slice(0, 3))).toEqual([
      ["runtimes", "--json", "connect"],
      ["runtimes", "--json", "status"]
    ])
    const connect = calls[0]!.argv
    expect(connect.slice(0, 9)).toEqual([
      "runtimes",
      "--json",
      "connect",
      "--alias",
      "termpilot",
      "--tunnel-id",
      TUNNEL,
      "--runtime-api-key",
      "env:CONTROL_PLANE_API_KEY"
    ])
    expect(connect[9]).toBe("--mcp-command")
    expect(connect).toHaveLength(11)
    // tunnel-client's splitter must give back exactly node + our entry (path with spaces and quotes).
    expect(splitShellWords(connect[10]!)).toEqual([process.execPath, world.entry])
    expect(calls[0]!.keyRef).toEqual({ name: "CONTROL_PLANE_API_KEY", set: true })
    expect(calls[1]!.argv).toEqual(["runtimes", "--json", "status", "termpilot"])
    expect(result.stdout).toContain("Healthy: yes")
    expect(result.stdout).toContain("Ready: yes")
    expect(result.stdout).toContain("Tunnel (not Server URL)")
    expect(result.stdout).toContain(`paste this tunnel id: ${TUNNEL}`)
    noPlaceholders(result.stdout)
  })

  it("passes a custom alias and key variable only as env:NAME", async () => {
    const result = await runChatgpt(
      world,
      ["setup", "--tunnel-id", TUNNEL, "--alias", "work", "--runtime-key-env", "MY_TUNNEL_KEY"],
      env("healthy", { MY_TUNNEL_KEY: "rk-other" })
    )
    expect(result.exitCode).toBe(0)
    const [connect, status] = world.records()
    expect(connect!.argv.slice(3, 9)).toEqual([
      "--alias",
      "work",
      "--tunnel-id",
      TUNNEL,
      "--runtime-api-key",
      "env:MY_TUNNEL_KEY"
    ])
    expect(connect!.keyRef).toEqual({ name: "MY_TUNNEL_KEY", set: true })
    expect(status!.argv).toEqual(["runtimes", "--json", "status", "work"])
  })

  it("rejects an invalid tunnel id before running anything", async () => {
    const result = await runChatgpt(world, ["setup", "--tunnel-id", "tunnel_ABC"], env("healthy"))
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain("tunnel_ followed by 32 lowercase hex digits")
    expect(world.records()).toEqual([])
  })

  it("reports a missing runtime key, with the .env remedy, before running anything", async () => {
    const result = await runChatgpt(world, ["setup", "--tunnel-id", TUNNEL], env("healthy", {}))
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain("CONTROL_PLANE_API_KEY is not set")
    expect(result.stderr).toContain("set -a; source .env; set +a")
    expect(world.records()).toEqual([])
  })

  it("fails with tunnel-client's repair actions when connect reports an unhealthy launch", async () => {
    const result = await runChatgpt(world, ["setup", "--tunnel-id", TUNNEL], env("unhealthy"))
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain("could not start the tunnel runtime")
    expect(result.stderr).toContain("/healthz did not answer ok: tunnel-client runtimes status termpilot")
    expect(world.records()).toHaveLength(1)
    noPlaceholders(result.stderr)
  })

  it("fails when connect succeeded but status shows the process is not running", async () => {
    const result = await runChatgpt(world, ["setup", "--tunnel-id", TUNNEL], env("stopped"))
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain("process is not running")
    expect(result.stderr).toContain("Process running: no")
    expect(result.stdout).toBe("")
  })

  it("waits for a runtime that becomes ready", async () => {
    const result = await runChatgpt(
      world,
      ["setup", "--tunnel-id", TUNNEL, "--wait", "15"],
      env("slow_ready")
    )
    expect(result.exitCode).toBe(0)
    const statuses = world.records().filter((c) => c.argv.includes("status"))
    expect(statuses).toHaveLength(3)
    expect(result.stdout).toContain("Ready: yes")
  })

  it("shows the payload's error when tunnel-client exits non-zero with JSON", async () => {
    const result = await runChatgpt(world, ["setup", "--tunnel-id", TUNNEL, "--json"], env("error"))
    expect(result.exitCode).toBe(1)
    const report = JSON.parse(result.stdout)
    expect(report.ok).toBe(false)
    expect(report.error).toMatchObject({
      reason: "exited_nonzero",
      message: "tunnel lookup failed: 404 tunnel not found",
      exit_code: 2
    })
    expect(report.repair_actions[0].reason).toBe("the tunnel id is not visible to this key")
  })

  it("fails closed on output that is not JSON", async () => {
    const result = await runChatgpt(world, ["setup", "--tunnel-id", TUNNEL], env("malformed"))
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain("exited 0 but printed output that is not JSON")
  })
})

describe("status", () => {
  it("summarises a healthy runtime and exits 0", async () => {
    const result = await runChatgpt(world, ["status"], env("healthy"))
    expect(result.exitCode).toBe(0)
    expect(world.records().map((c) => c.argv)).toEqual([["runtimes", "--json", "status", "termpilot"]])
    for (const line of [
      "Alias: termpilot",
      `Tunnel: ${TUNNEL}`,
      "Runtime state: ready",
      "Process running: yes",
      "Healthy: yes",
      "Ready: yes",
      "Local UI: http://127.0.0.1:8080/ui"
    ]) {
      expect(result.stdout).toContain(line)
    }
    noPlaceholders(result.stdout)
  })

  it("exits non-zero for a stopped runtime and omits absent fields", async () => {
    const result = await runChatgpt(world, ["status"], env("stopped"))
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toContain("Process running: no")
    expect(result.stdout).not.toContain("Local UI")
    expect(result.stderr).toContain("not running")
    noPlaceholders(result.stdout + result.stderr)
  })

  it("exits non-zero for a running but unhealthy runtime", async () => {
    const result = await runChatgpt(world, ["status", "--json"], env("unhealthy"))
    expect(result.exitCode).toBe(1)
    const report = JSON.parse(result.stdout)
    expect(report).toMatchObject({ ok: false, process_running: true, healthy: false })
    expect(report.problem).toContain("not healthy")
  })

  it("reports tunnel-client's stderr when the alias is unknown", async () => {
    const result = await runChatgpt(world, ["status", "--alias", "nope"], env("unknown_alias"))
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain("alias nope is not known; run create or connect first")
  })

  it("fails closed on a payload of the wrong shape", async () => {
    const result = await runChatgpt(world, ["status"], env("wrong_shape"))
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain("unexpected shape")
  })

  it("ends a hung tunnel-client with the timeout, killing it", async () => {
    const result = await runChatgpt(world, ["status", "--timeout", "1"], env("hang"))
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain("did not answer within 1s")
    const [call] = world.records()
    expect(call).toBeDefined()
    expect(() => process.kill(call!.pid, 0)).toThrow()
  })
})

describe("doctor", () => {
  it("works without tunnel-client on PATH: structured failure, brew remedy, non-zero", async () => {
    const result = await runChatgpt(world, ["doctor", "--json"], {
      ...env("healthy"),
      PATH: dirname(process.execPath)
    })
    expect(result.exitCode).toBe(1)
    const report = JSON.parse(result.stdout)
    expect(report.ok).toBe(false)
    expect(report.checks.map((c: { name: string; status: string }) => [c.name, c.status])).toEqual([
      ["tunnel_client", "failed"],
      ["runtime_key", "ok"],
      ["runtime", "skipped"]
    ])
    expect(report.checks[0].remedy).toContain("brew install openai/tools/tunnel-client")
    expect(world.records()).toEqual([])
  })

  it("passes every check against a healthy runtime and changes nothing", async () => {
    const result = await runChatgpt(world, ["doctor"], env("healthy"))
    expect(result.exitCode).toBe(0)
    expect(world.records().map((c) => c.argv)).toEqual([
      ["--version"],
      ["runtimes", "--json", "status", "termpilot"]
    ])
    expect(result.stdout).toContain("tunnel-client version 9.9.9-fake")
    expect(result.stdout).toContain("All checks passed.")
  })

  it("uses --runtime-key-env and reports a missing key with the .env remedy", async () => {
    const result = await runChatgpt(
      world,
      ["doctor", "--json", "--runtime-key-env", "OTHER_KEY"],
      env("healthy")
    )
    expect(result.exitCode).toBe(1)
    const report = JSON.parse(result.stdout)
    expect(report.checks[1]).toMatchObject({ name: "runtime_key", status: "failed" })
    expect(report.checks[1].detail).toContain("OTHER_KEY")
    expect(report.checks[1].remedy).toContain("set -a; source .env; set +a")
    expect(report.checks[2].status).toBe("ok")
  })

  it("skips the runtime check when --version fails, and honours an explicit --tunnel-client", async () => {
    const { FAKE_TUNNEL_CLIENT } = await import("./harness.js")
    const result = await runChatgpt(world, ["doctor", "--json", "--tunnel-client", FAKE_TUNNEL_CLIENT], {
      ...env("version_fails"),
      PATH: dirname(process.execPath)
    })
    expect(result.exitCode).toBe(1)
    const report = JSON.parse(result.stdout)
    expect(report.checks[0]).toMatchObject({ name: "tunnel_client", status: "failed" })
    expect(report.checks[0].detail).toContain("this build is broken")
    expect(report.checks[2].status).toBe("skipped")
    expect(world.records().map((c) => c.argv)).toEqual([["--version"]])
  })
})

describe("executable resolution", () => {
  it("reports failed_to_start for an executable that cannot be spawned, and not_found for a non-executable file", async () => {
    const { chmodSync, writeFileSync } = await import("node:fs")
    const { join } = await import("node:path")
    const broken = join(world.root, "broken tunnel-client")
    writeFileSync(broken, "#!/nonexistent/interpreter\n")
    chmodSync(broken, 0o755)
    const spawnFails = await runChatgpt(
      world,
      ["status", "--json", "--tunnel-client", broken],
      env("healthy")
    )
    expect(spawnFails.exitCode).toBe(1)
    expect(JSON.parse(spawnFails.stdout).error.reason).toBe("failed_to_start")

    chmodSync(broken, 0o644)
    const notExecutable = await runChatgpt(
      world,
      ["status", "--json", "--tunnel-client", broken],
      env("healthy")
    )
    expect(notExecutable.exitCode).toBe(1)
    const report = JSON.parse(notExecutable.stdout)
    expect(report.error.reason).toBe("not_found")
    expect(report.remedy).toContain("brew install openai/tools/tunnel-client")
  })
})

describe("disconnect", () => {
  it("stops the local runtime and says the remote tunnel was kept", async () => {
    const result = await runChatgpt(world, ["disconnect"], env("healthy"))
    expect(result.exitCode).toBe(0)
    expect(world.records().map((c) => c.argv)).toEqual([["runtimes", "--json", "stop", "termpilot"]])
    expect(result.stdout).toContain("Stopped the local tunnel runtime 'termpilot'")
    expect(result.stdout).toContain("remote tunnel was kept")
    expect(result.stdout).toContain(`termpilot chatgpt setup --tunnel-id ${TUNNEL}`)
  })

  it("exits non-zero with tunnel-client's error", async () => {
    const result = await runChatgpt(world, ["disconnect"], env("error"))
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain("tunnel lookup failed: 404 tunnel not found")
  })
})
