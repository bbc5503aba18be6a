/**
 * Both protocol eras on one binary, end to end: the built, bundled `dist/termpilot.js --approval
 * always` over real stdio, driven by the official v2 TypeScript client pinned to MCP 2026-07-28
 * (no `initialize`; approvals as `input_required` results, answered by the client's retry) and in
 * legacy mode (the `initialize` handshake; approvals as `elicitation/create`), against a real tmux
 * pane on a private socket. What reached the pane is proven from its own input recorder: an accept
 * types the command exactly once; a decline, a late answer, and a forged, edited, cross-request or
 * replayed request state type nothing. (A second client implementation, the Python SDK, cannot be
 * installed here: PyPI is not reachable.) A client in `auto` mode probes with `server/discover`
 * and lands on 2026-07-28.
 * Needs the build (`npm run build`).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { Client, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { toolRegistry } from "../../src/tools/Registry.js"
import type { McpHarness } from "../support/McpHarness.js"
import { stdioTransport, tmuxWorldEnv } from "../support/StdioServer.js"
import { expectNothingReached } from "../support/tmux/Proof.js"
import { type RigPane, settle } from "../support/tmux/TmuxRig.js"
import { TmuxWorld } from "../support/tmux/TmuxWorld.js"

const root = resolve(import.meta.dirname, "../..")
const bin = join(root, "dist/termpilot.js")
const TIMEOUT_SECONDS = 2

let world: TmuxWorld
let pane: RigPane
/** The config file that sets a short approval timeout (the policy comes from `--approval always`). */
let configPath = ""
/** The audit trail every server of this file writes. */
let auditPath = ""

beforeAll(async () => {
  world = TmuxWorld.create()
  const created = await world.newSession("eras")
  pane = { ...created, id: await world.sessionId(created) }
  configPath = join(world.home, "termpilot-eras.json")
  auditPath = join(world.home, "termpilot-eras-audit.jsonl")
  writeFileSync(
    configPath,
    JSON.stringify({ approval: { timeoutSeconds: TIMEOUT_SECONDS }, audit: { path: auditPath } })
  )
})

afterAll(async () => {
  await world?.close()
})

type Era = "2026-07-28" | "legacy"
/** How the client picks its era: pinned to one, or `auto` (it probes with `server/discover`). */
type Negotiation = Era | "auto"
type Answer = (request: ElicitRequest) => Promise<ElicitResult>

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The built termpilot on `era`; with `answer`, the client declares elicitation and answers so. */
const connect = async (era: Negotiation, answer?: Answer, autoFulfill = true) => {
  const env = { ...tmuxWorldEnv(world), TERMPILOT_CONFIG: configPath }
  const { transport, stderr } = stdioTransport(bin, env, ["--approval", "always"])
  const client = new Client(
    { name: "termpilot-e2e-eras", version: "0" },
    {
      ...(answer === undefined ? {} : { capabilities: { elicitation: {} } }),
      versionNegotiation: { mode: era === "2026-07-28" ? { pin: era } : era },
      inputRequired: { autoFulfill }
    }
  )
  const asked: Array<string> = []
  if (answer !== undefined)
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message)
      return answer(request)
    })
  await client.connect(transport)
  await settle({ client } as unknown as McpHarness, pane, "ready")
  return { client, asked, stderr }
}

const run = (client: Client, command: string) =>
  client.callTool({ name: "run_command", arguments: { session_id: pane.id, command, timeout_seconds: 20 } })

/** An `input_required` result as the client hands it over in manual mode. */
interface InputRequired {
  readonly resultType: "input_required"
  readonly inputRequests: Record<string, { method: string; params: Record<string, unknown> }>
  readonly requestState: string
}

/** The first round of a call in manual mode: the question, not an answer. */
const ask = async (client: Client, command: string): Promise<InputRequired> => {
  const result = (await client.callTool(
    { name: "run_command", arguments: { session_id: pane.id, command, timeout_seconds: 20 } },
    { allowInputRequired: true }
  )) as unknown as InputRequired
  expect(result.resultType).toBe("input_required")
  return result
}

/** A retry in manual mode carrying `state` and `action` (the client echoes the state verbatim). */
const retry = (client: Client, command: string, state: string, action: ElicitResult["action"] = "accept") =>
  client.callTool(
    {
      name: "run_command",
      arguments: { session_id: pane.id, command, timeout_seconds: 20 },
      inputResponses: { approval: { action } },
      requestState: state
    } as never,
    { allowInputRequired: true }
  )

describe.each<Era>(["2026-07-28", "legacy"])("termpilot --approval always, client on %s", (era) => {
  it("negotiates that era and lists every tool", async () => {
    const { client } = await connect(era, async () => ({ action: "decline" }))
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(era === "legacy" ? "2025-11-25" : "2026-07-28")
      const listed = await client.listTools()
      expect(listed.tools.map((tool) => tool.name)).toEqual(toolRegistry().map((tool) => tool.name))
      // Sessions change: a 2026-07-28 client is told not to keep the list (legacy has no such field).
      if (era === "legacy") expect(listed).not.toHaveProperty("ttlMs")
      else expect(listed).toMatchObject({ ttlMs: 0, cacheScope: "private" })
      expect(client.getInstructions()).toContain("approval policy 'always'")
    } finally {
      await client.close()
    }
  })

  it("accepted: the command is typed exactly once, asked with the exact command", async () => {
    const { client, asked } = await connect(era, async () => ({ action: "accept" }))
    try {
      const mark = pane.files.recorder.mark()
      const ran = await run(client, `echo ${era}-accepted`)
      expect(ran.structuredContent).toMatchObject({
        status: "completed",
        exit_code: 0,
        output: `${era}-accepted`
      })
      expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(
        JSON.stringify(`echo ${era}-accepted\r`)
      )
      expect(asked).toHaveLength(1)
      expect(asked[0]).toContain(`»echo ${era}-accepted«`)
    } finally {
      await client.close()
    }
  })

  it("declined: declined_by_user, nothing reaches the pane", async () => {
    const { client, asked } = await connect(era, async () => ({ action: "decline" }))
    try {
      const ran = await expectNothingReached(
        [world],
        () => run(client, "echo must-not-run"),
        "a declined call"
      )
      expect(ran.structuredContent).toMatchObject({
        status: "rejected",
        sent: false,
        error_code: "declined_by_user"
      })
      expect(asked).toHaveLength(1)
    } finally {
      await client.close()
    }
  })

  it("an answer after the approval timeout: approval_timed_out, nothing reaches the pane", async () => {
    const { client } = await connect(era, async () => {
      await sleep(TIMEOUT_SECONDS * 1000 + 1500)
      return { action: "accept" }
    })
    try {
      const ran = await expectNothingReached(
        [world],
        async () => {
          const result = await run(client, "echo too-late")
          await sleep(1000) // on the legacy era the late accept arrives meanwhile: still nothing
          return result
        },
        "a late answer"
      )
      expect(ran.structuredContent).toMatchObject({
        status: "rejected",
        sent: false,
        error_code: "approval_timed_out"
      })
    } finally {
      await client.close()
    }
  })
})

describe("a client that probes (`auto`)", () => {
  it("lands on 2026-07-28 and gets an approval through input_required", async () => {
    const { client, asked } = await connect("auto", async () => ({ action: "accept" }))
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
      const mark = pane.files.recorder.mark()
      const ran = await run(client, "echo probed")
      expect(ran.structuredContent).toMatchObject({ status: "completed", output: "probed" })
      expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("echo probed\r"))
      expect(asked).toHaveLength(1)
    } finally {
      await client.close()
    }
  })
})

describe("2026-07-28: the request state binds the answer to its own call", () => {
  it("the input_required result carries the same form as the legacy dialog", async () => {
    const { client } = await connect("2026-07-28", async () => ({ action: "decline" }), false)
    try {
      const question = await ask(client, "echo the-form")
      const request = question.inputRequests.approval
      expect(request?.method).toBe("elicitation/create")
      expect(request?.params).toMatchObject({
        mode: "form",
        requestedSchema: { type: "object", properties: {} }
      })
      expect(String(request?.params.message)).toContain("»echo the-form«")
      // The audit trail says what this round was: a question sent back, nothing typed yet.
      const audited = () =>
        readFileSync(auditPath, "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((line) => line.command === "echo the-form" || line.shown === "echo the-form")
      let lines = audited()
      for (let i = 0; i < 50 && lines.length < 2; i++) {
        await sleep(20)
        lines = audited()
      }
      expect(lines.map((line) => line.outcome ?? line.status)).toEqual(["input_required", "rejected"])
      expect(lines[1]).toMatchObject({ sent: false })
      expect(question.requestState).toMatch(/^tpa1\./)
    } finally {
      await client.close()
    }
  })

  it("forged, edited and cross-request states are refused with invalid_request, nothing sent", async () => {
    const { client } = await connect("2026-07-28", async () => ({ action: "accept" }), false)
    try {
      const mine = await ask(client, "echo mine")
      const [body, mac] = mine.requestState.slice("tpa1.".length).split(".")
      const payload = JSON.parse(Buffer.from(body ?? "", "base64url").toString("utf8"))
      const later = Buffer.from(JSON.stringify({ ...payload, e: payload.e + 3_600_000 })).toString(
        "base64url"
      )
      const other = await ask(client, "echo other")
      const states: ReadonlyArray<readonly [string, string, string]> = [
        ["forged", "tpa1.e30.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "echo mine"],
        ["made up", "please-run-it", "echo mine"],
        ["edited (a later expiry, the old MAC)", `tpa1.${later}.${mac}`, "echo mine"],
        ["another call's (other arguments)", other.requestState, "echo mine"]
      ]
      for (const [what, state, command] of states) {
        const refused = await expectNothingReached(
          [world],
          () => retry(client, command, state),
          `a ${what} state`
        )
        expect(refused.isError, what).toBe(true)
        expect(refused.structuredContent, what).toMatchObject({ error_code: "invalid_request" })
      }
    } finally {
      await client.close()
    }
  })

  it("a replayed answer is refused: the accepted command ran once, the replay sends nothing", async () => {
    const { client } = await connect("2026-07-28", async () => ({ action: "accept" }), false)
    try {
      const question = await ask(client, "echo once-only")
      const mark = pane.files.recorder.mark()
      const first = await retry(client, "echo once-only", question.requestState)
      expect(first.structuredContent).toMatchObject({ status: "completed", output: "once-only" })
      expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("echo once-only\r"))
      await settle({ client } as unknown as McpHarness, pane, "ready")
      const replayed = await expectNothingReached(
        [world],
        () => retry(client, "echo once-only", question.requestState),
        "a replay"
      )
      expect(replayed.structuredContent).toMatchObject({ error_code: "invalid_request" })
    } finally {
      await client.close()
    }
  })

  it("a decline carried by the retry: declined_by_user, and the state is used up", async () => {
    const { client } = await connect("2026-07-28", async () => ({ action: "accept" }), false)
    try {
      const question = await ask(client, "echo no-thanks")
      const declined = await expectNothingReached(
        [world],
        () => retry(client, "echo no-thanks", question.requestState, "decline"),
        "a declining retry"
      )
      expect(declined.structuredContent).toMatchObject({ status: "rejected", error_code: "declined_by_user" })
      const again = await expectNothingReached(
        [world],
        () => retry(client, "echo no-thanks", question.requestState, "accept"),
        "an accept replayed after a decline"
      )
      expect(again.structuredContent).toMatchObject({ error_code: "invalid_request" })
    } finally {
      await client.close()
    }
  })

  it("progress, the client's cancel and an approved interrupt_command work on this era", async () => {
    const { client } = await connect("2026-07-28", async () => ({ action: "accept" }))
    try {
      const mark = pane.files.recorder.mark()
      const progress: Array<{ progress: number; message?: string | undefined }> = []
      const abort = new AbortController()
      const waiting = client
        .callTool(
          { name: "run_command", arguments: { session_id: pane.id, command: "sleep 100" } },
          { onprogress: (p) => progress.push(p), signal: abort.signal, timeout: 60_000 }
        )
        .then(
          () => "answered",
          () => "rejected"
        )
      // The client reports its own rounds too ("Fulfilling input required…"); the server's name
      // the request_id.
      const named = () =>
        progress.map((p) => /request_id ([0-9a-f]{32})/.exec(p.message ?? "")?.[1]).find(Boolean)
      await expect.poll(named, { timeout: 10_000 }).toBeDefined()
      const requestId = named()
      abort.abort()
      expect(await waiting).toBe("rejected")
      const stopped = await client.callTool({
        name: "interrupt_command",
        arguments: { request_id: requestId, wait_seconds: 10 }
      })
      expect(stopped.structuredContent).toMatchObject({
        status: "completed",
        exit_code: 130,
        interrupt_sent: true
      })
      expect(JSON.stringify(pane.files.recorder.textSince(mark))).toBe(JSON.stringify("sleep 100\r\u0003"))
    } finally {
      await client.close()
    }
  })
})
