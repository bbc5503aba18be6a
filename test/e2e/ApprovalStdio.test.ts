/**
 * End to end over real stdio: the built `termpilot --approval always` against the fake iTerm2,
 * with the SDK's StdioClientTransport and a client that declares elicitation. The instructions
 * name the policy; a declined run_command types nothing (the fake's SendText ledger), an accepted
 * one is typed once; the client's name reaches the dialog's audit through `initialize`.
 * Needs the build (`npx tsc -p tsconfig.build.json`; `npm test` builds first).
 */
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import type { ElicitResult } from "@modelcontextprotocol/client"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

const root = resolve(import.meta.dirname, "../..")
const bin = join(root, "dist/src/cli/bin.js")

let rig: FakeIterm2Rig

const childEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("ITERM") && !k.startsWith("TERMPILOT")) env[k] = v
  }
  return { ...env, HOME: rig.home, NO_COLOR: "1", TERMPILOT_BACKENDS: "iterm2" }
}

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npx tsc -p tsconfig.build.json\` first`)
  rig = await openFakeIterm2Rig()
})

afterAll(async () => {
  await rig?.close()
})

describe("termpilot --approval always over stdio", () => {
  it("names the policy, asks through elicitation, and types only what was accepted", async () => {
    const session = await rig.world.createWindow({ title: "stdio-approval" })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "--approval", "always"],
      env: childEnv(),
      stderr: "pipe"
    })
    const answers: Array<ElicitResult["action"]> = ["decline", "accept"]
    const messages: Array<string> = []
    const client = new Client(
      { name: "termpilot-e2e-stdio", version: "0" },
      { capabilities: { elicitation: {} } }
    )
    client.setRequestHandler("elicitation/create", async (request) => {
      messages.push(request.params.message)
      return { action: answers.shift() ?? "decline" }
    })
    await client.connect(transport)
    try {
      expect(client.getInstructions()).toContain("approval policy 'always'")
      const before = rig.world.ledger.size
      const declined = await client.callTool({
        name: "run_command",
        arguments: { session_id: session.sessionId, command: "echo declined-over-stdio" }
      })
      expect(declined.structuredContent).toMatchObject({
        status: "rejected",
        sent: false,
        error_code: "declined_by_user"
      })
      expect(rig.world.ledger.size).toBe(before)
      const accepted = await client.callTool({
        name: "run_command",
        arguments: { session_id: session.sessionId, command: "echo accepted-over-stdio" }
      })
      expect(accepted.structuredContent).toMatchObject({ status: "completed", output: "accepted-over-stdio" })
      expect(rig.world.ledger.forSession(session.sessionId).map((e) => e.text)).toEqual([
        "echo accepted-over-stdio\r"
      ])
      expect(messages).toHaveLength(2)
      expect(messages[1]).toContain("»echo accepted-over-stdio«")
    } finally {
      await client.close()
    }
  })

  it("--approval-ask-in client: a client without elicitation is refused, nothing typed; the instructions say where it asks", async () => {
    const session = await rig.world.createWindow({ title: "stdio-ask-in" })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "--approval", "always", "--approval-ask-in", "client"],
      env: childEnv(),
      stderr: "pipe"
    })
    const client = new Client({ name: "termpilot-e2e-no-dialog", version: "0" })
    await client.connect(transport)
    try {
      expect(client.getInstructions()).toContain("asked in the MCP client's dialog only")
      const before = rig.world.ledger.size
      const refused = await client.callTool({
        name: "run_command",
        arguments: { session_id: session.sessionId, command: "echo never-asked" }
      })
      expect(refused.structuredContent).toMatchObject({
        status: "rejected",
        sent: false,
        error_code: "approval_unavailable"
      })
      expect(String((refused.structuredContent as { message?: unknown }).message)).toContain(
        "approval.askIn is 'client'"
      )
      expect(rig.world.ledger.size).toBe(before)
    } finally {
      await client.close()
    }
  })
})
