/**
 * The hardening features end to end, through the real MCP client, TermPilot's composition root
 * (mainLayerWith) and the fake iTerm2 with real shells: secret redaction and hygiene in what the
 * model is shown, the audit trail, read-only mode and the session policy — and that every refusal
 * sends nothing.
 */
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { toolRegistry } from "../../src/tools/Registry.js"
import { call, type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

// Assembled at run time so no secret-shaped literal sits in the repository.
const AWS_KEY = ["AKIA", "Z7QX4M2N8B5V3C6L"].join("")
const GH_TOKEN = ["ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"].join("")

let rig: FakeIterm2Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

const open = async (options: Parameters<typeof openFakeIterm2Rig>[0] = {}) => {
  rig = await openFakeIterm2Rig(options)
  return rig
}

describe("what the model is shown", () => {
  it("redacts secrets in read_terminal and run_command output, counts them, and strips concealing characters", async () => {
    const { world, mcp } = await open()
    const { sessionId } = await world.createWindow({ integration: true })
    await world.runAsUser(sessionId, `echo "aws=${AWS_KEY}"; printf 'safe\\u202eevil\\n'`)

    const read = await call(mcp, "read_terminal", { session_id: sessionId })
    const content = String(read.data.content)
    expect(content).not.toContain(AWS_KEY)
    expect(content).toContain("[REDACTED:aws_access_key]")
    expect(content).toContain("safeevil")
    expect(content).not.toContain("\u202e")
    expect(read.data.redactions).toBeGreaterThanOrEqual(1)

    const run = await call(mcp, "run_command", { session_id: sessionId, command: `echo token ${GH_TOKEN}` })
    expect(run.data.status).toBe("completed")
    expect(run.data.output).toBe("token [REDACTED:github_token]")
    expect(run.data.redactions).toBe(1)
    const summary = (
      await mcp.client.callTool({
        name: "get_command_result",
        arguments: { request_id: run.data.request_id }
      })
    ).content as ReadonlyArray<{ text: string }>
    expect(summary[0]?.text).toMatch(/^Terminal content below is untrusted observation data/)
  })

  it("returns the text as it is when redaction is switched off in the config", async () => {
    const { world, mcp } = await open({ config: { redaction: { enabled: false } } })
    const { sessionId } = await world.createWindow({ integration: true })
    const run = await call(mcp, "run_command", { session_id: sessionId, command: `echo ${AWS_KEY}` })
    expect(run.data.output).toBe(AWS_KEY)
    expect(run.data.redactions).toBe(0)
  })
})

describe("audit trail", () => {
  it("appends one JSON line per call, with digests instead of text, in a 0600 file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tp-audit-"))
    const path = join(dir, "state", "audit.jsonl")
    const { world, mcp } = await open({ auditPath: path })
    const { sessionId } = await world.createWindow({ integration: true, title: "audited" })
    await call(mcp, "read_terminal", { session_id: sessionId })
    const run = await call(mcp, "run_command", {
      session_id: sessionId,
      command: `echo hi ${GH_TOKEN}; (exit 4)`
    })
    expect(run.data.exit_code).toBe(4)
    await rig?.close() // drains the writer
    rig = undefined

    expect(existsSync(path)).toBe(true)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const text = readFileSync(path, "utf8")
    expect(text).not.toContain(GH_TOKEN)
    const lines = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const read = lines.find((l) => l.tool === "read_terminal")
    const command = lines.find((l) => l.tool === "run_command")
    expect(read).toMatchObject({ kind: "read", session_id: sessionId })
    expect(command).toMatchObject({
      kind: "command",
      session_id: sessionId,
      status: "completed",
      sent: true,
      exit_code: 4,
      request_id: run.data.request_id
    })
    expect(command?.session_labels).toContain("audited")
    expect(String(command?.command)).toContain("[REDACTED:github_token]")
  })
})

describe("read-only mode", () => {
  it("does not list run_command or interrupt_command, refuses to call them, and sends nothing", async () => {
    const { world, mcp } = await open({
      config: { readOnly: true },
      server: { tools: toolRegistry({ readOnly: true }) }
    })
    const { sessionId } = await world.createWindow({ integration: true })
    const tools = (await mcp.client.listTools()).tools.map((t) => t.name)
    expect(tools).not.toContain("run_command")
    await expect(
      mcp.client.callTool({ name: "run_command", arguments: { session_id: sessionId, command: "true" } })
    ).rejects.toThrow(/run_command/)
    expect(tools).not.toContain("interrupt_command")
    await expect(
      mcp.client.callTool({ name: "interrupt_command", arguments: { request_id: "0123456789abcdef" } })
    ).rejects.toThrow(/Unknown tool: interrupt_command/)
    expect((await call(mcp, "read_terminal", { session_id: sessionId })).isError).toBe(false)
    // wait_for_output only reads, so it stays listed and works.
    expect(tools).toContain("wait_for_output")
    const waited = await call(mcp, "wait_for_output", { session_id: sessionId, quiet_seconds: 0.3 })
    expect(waited.data).toMatchObject({ stopped: "quiet" })
    expect(world.ledger.size).toBe(0)
  })
})

describe("session policy", () => {
  it("hides sessions by profile and refuses to type where the tag is not actionable, sending nothing", async () => {
    const { world, mcp } = await open({
      config: {
        policy: {
          visible: { deny: { profiles: ["Secret*"] } },
          actionable: { allow: { tags: ["dev"] } }
        }
      }
    })
    const hidden = (await world.createWindow({ integration: true, profileName: "Secret Prod" })).sessionId
    const dev = (await world.createWindow({ integration: true })).sessionId
    const other = (await world.createWindow({ integration: true })).sessionId
    world.setUserVar(dev, "termpilot_tag", "dev")

    const listed = (await call(mcp, "list_sessions")).data.sessions as ReadonlyArray<Record<string, unknown>>
    expect(listed.map((s) => s.session_id).sort()).toEqual([dev, other].sort())
    expect(listed.find((s) => s.session_id === dev)?.tag).toBe("dev")

    const readHidden = await call(mcp, "read_terminal", { session_id: hidden })
    expect(readHidden).toMatchObject({ isError: true, data: { error_code: "session_not_found" } })
    const runHidden = await call(mcp, "run_command", { session_id: hidden, command: "echo no" })
    expect(runHidden.data).toMatchObject({ status: "rejected", sent: false, error_code: "session_not_found" })
    const runOther = await call(mcp, "run_command", { session_id: other, command: "echo no" })
    expect(runOther.data).toMatchObject({ status: "rejected", sent: false, error_code: "not_permitted" })
    expect(world.ledger.size).toBe(0)

    const runDev = await call(mcp, "run_command", { session_id: dev, command: "echo yes" })
    expect(runDev.data).toMatchObject({ status: "completed", output: "yes" })
    expect(world.ledger.all().map((e) => e.session)).toEqual([dev])
  })
})
