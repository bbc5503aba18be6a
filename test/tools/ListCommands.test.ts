/**
 * list_commands through the real MCP SDK client over a RecordingBackend with canned CommandRecords:
 * every field mapped (ISO times, ran_by from the runner's requestAt, output availability), command
 * lines and directories cleaned and redacted, `limit` validated and passed on, `since` a command_id
 * that reaches the backend as its key, and anything else as `since` refused with nothing listed.
 */
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { UNTRUSTED_TERMINAL_NOTICE } from "../../src/domain/Hygiene.js"
import { fail } from "../../src/services/Errors.js"
import { decodeCommandId } from "../../src/tools/CommandIds.js"
import {
  callsOf,
  GITHUB_TOKEN,
  type Opened,
  OUR_REQUEST,
  openWithRecords,
  record,
  sampleRecords,
  structured,
  summaryOf
} from "../support/CommandRecords.js"
import { SESSION_ID } from "../support/RecordingBackend.js"

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

const open = async (...args: Parameters<typeof openWithRecords>): Promise<Opened> => {
  const opened = await openWithRecords(...args)
  close = opened.close
  return opened
}

const list = (client: Opened["client"], args: Record<string, unknown> = {}) =>
  client.callTool({ name: "list_commands", arguments: { session_id: SESSION_ID, ...args } })

type Listed = ReadonlyArray<Record<string, unknown>>
const commandsOf = (result: Awaited<ReturnType<typeof list>>) => structured(result).commands as Listed

describe("list_commands", () => {
  it("maps every field of the backend's records, oldest first", async () => {
    const { client, backend } = await open()
    const result = await list(client)
    expect(result.isError ?? false).toBe(false)
    expect(callsOf(backend, "listCommands").map((c) => c.args)).toEqual([[SESSION_ID, 20, null]])
    expect(callsOf(backend, "requestAt").map((c) => c.args)).toEqual([
      [SESSION_ID, "p1"],
      [SESSION_ID, "p2"]
    ])
    const [ours, persons, unknown] = commandsOf(result)
    expect(ours).toEqual({
      command_id: expect.stringMatching(/^cmd_[A-Za-z0-9_-]+$/),
      command: "make test",
      exit_code: 2,
      cwd: "/Users/ada/src",
      started_at: "2026-01-02T03:04:05.000Z",
      finished_at: "2026-01-02T03:04:06.250Z",
      status: "finished",
      ran_by: "termpilot",
      request_id: OUR_REQUEST,
      output_line_count: 57,
      output_available: true,
      output_unavailable_reason: null
    })
    expect(persons).toMatchObject({
      started_at: "2026-01-02T03:04:10.000Z",
      finished_at: null,
      status: "running",
      ran_by: "person",
      request_id: null,
      output_line_count: 0,
      output_available: false,
      output_unavailable_reason: "its output is no longer in the pane's history"
    })
    expect(unknown).toMatchObject({
      command: null,
      exit_code: null,
      cwd: null,
      started_at: null,
      status: "unknown",
      ran_by: "person",
      output_line_count: null,
      output_available: true
    })
    // Each id seals its record's key for this session.
    expect(commandsOf(result).map((c) => decodeCommandId(SESSION_ID, String(c.command_id), "x"))).toEqual(
      sampleRecords.map((r) => r.key)
    )
    expect(summaryOf(result).startsWith(UNTRUSTED_TERMINAL_NOTICE)).toBe(true)
    expect(summaryOf(result)).toMatch(/Listed 3 command\(s\) of session .*the newest: unknown, ran_by person/)
  })

  it("cleans and redacts command lines and directories, counting the redactions", async () => {
    const { client } = await open()
    const result = await list(client)
    const persons = commandsOf(result)[1]
    expect(persons?.command).toBe("export GITHUB_TOKEN=[REDACTED:github_token]")
    expect(persons?.cwd).toBe("/Users/ada/src")
    expect(structured(result).redactions).toBe(1)
    expect(JSON.stringify(result)).not.toContain(GITHUB_TOKEN)
  })

  it("with redaction switched off shows the command line as typed (hygiene still applies)", async () => {
    const { client } = await open(sampleRecords, {}, { redactSecrets: false })
    const result = await list(client)
    expect(commandsOf(result)[1]).toMatchObject({
      command: `export GITHUB_TOKEN=${GITHUB_TOKEN}`,
      cwd: "/Users/ada/src"
    })
    expect(structured(result).redactions).toBe(0)
  })

  it("passes limit on, and keeps only the newest `limit` whatever the backend returns", async () => {
    const { client, backend } = await open()
    const result = await list(client, { limit: 2 })
    expect(callsOf(backend, "listCommands")[0]?.args).toEqual([SESSION_ID, 2, null])
    expect(commandsOf(result).map((c) => c.status)).toEqual(["running", "unknown"])
    await list(client, { limit: 200 })
    expect(callsOf(backend, "listCommands")[1]?.args).toEqual([SESSION_ID, 200, null])
  })

  for (const limit of [0, 201, 1.5, "5", null]) {
    it(`limit ${JSON.stringify(limit)} → invalid_request, nothing listed`, async () => {
      const { client, backend } = await open()
      const result = await list(client, { limit })
      expect(result.isError).toBe(true)
      expect(structured(result)).toEqual({
        error_code: "invalid_request",
        message: "limit must be an integer between 1 and 200"
      })
      expect(backend.calls()).toEqual([])
    })
  }

  it("since: a listed command_id reaches the backend as that command's key", async () => {
    const { client, backend } = await open()
    const first = commandsOf(await list(client))
    await list(client, { since: first[1]?.command_id })
    await list(client, { since: first[0]?.command_id, limit: 5 })
    expect(callsOf(backend, "listCommands").map((c) => c.args)).toEqual([
      [SESSION_ID, 20, null],
      [SESSION_ID, 20, "tp7f3a9c:42"],
      [SESSION_ID, 5, "tp7f3a9c:41"]
    ])
  })

  it("since edited, made up, or of another session → invalid_request, nothing listed", async () => {
    const other = "tmux:/tmp/tmux-1000/default:4242.1796000000:%3"
    const { client, backend } = await open([record({ key: "k1" })])
    const id = String(commandsOf(await list(client))[0]?.command_id)
    const theirs = String(commandsOf(await list(client, { session_id: other }))[0]?.command_id)
    const before = backend.calls().length
    const edited = id.slice(0, 10) + (id[10] === "A" ? "B" : "A") + id.slice(11)
    for (const since of [edited, "cmd_made-up", theirs, `${id}A`]) {
      const result = await list(client, { since })
      expect(structured(result), since).toMatchObject({ error_code: "invalid_request" })
      expect(String(structured(result).message)).toMatch(
        /^since is not a command_id that list_commands returned/
      )
    }
    expect(backend.calls()).toHaveLength(before)
  })

  it("a backend failure passes through as its error code", async () => {
    const { client } = await open(sampleRecords, {
      terminal: {
        listCommands: (id) => Effect.fail(fail("session_not_found", `Session '${id}' was not found.`))
      }
    })
    const result = await list(client)
    expect(structured(result)).toMatchObject({ error_code: "session_not_found" })
  })
})

type JsonSchema = { properties?: Record<string, JsonSchema>; anyOf?: ReadonlyArray<JsonSchema> } & Record<
  string,
  unknown
>
const resultFields = (schema: unknown) => Object.keys((schema as JsonSchema).anyOf?.[0]?.properties ?? {})

describe("list_commands and read_command_output in tools/list", () => {
  for (const readOnly of [false, true]) {
    it(`are listed with their schemas${readOnly ? " in read-only mode, and answer there" : ""}`, async () => {
      const { client } = await open(sampleRecords, {}, { readOnly })
      const { tools } = await client.listTools()
      const byName = new Map(tools.map((t) => [t.name, t]))
      const listTool = byName.get("list_commands")
      const readTool = byName.get("read_command_output")
      for (const tool of [listTool, readTool])
        expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })

      expect(listTool?.inputSchema.required).toEqual(["session_id"])
      expect(listTool?.inputSchema.properties?.limit).toMatchObject({
        type: "integer",
        minimum: 1,
        maximum: 200,
        default: 20
      })
      expect(Object.keys(listTool?.inputSchema.properties ?? {})).toEqual(["session_id", "limit", "since"])
      expect(resultFields(listTool?.outputSchema)).toEqual(["session_id", "commands", "redactions"])
      const commands = (listTool?.outputSchema as JsonSchema | undefined)?.anyOf?.[0]?.properties?.commands
      expect(Object.keys((commands?.items as JsonSchema | undefined)?.properties ?? {})).toEqual([
        "command_id",
        "command",
        "exit_code",
        "cwd",
        "started_at",
        "finished_at",
        "status",
        "ran_by",
        "request_id",
        "output_line_count",
        "output_available",
        "output_unavailable_reason"
      ])

      expect(readTool?.inputSchema.required).toEqual(["session_id", "command_id"])
      expect(Object.keys(readTool?.inputSchema.properties ?? {})).toEqual([
        "session_id",
        "command_id",
        "max_lines",
        "max_chars",
        "from"
      ])
      expect(readTool?.inputSchema.properties?.from).toMatchObject({
        anyOf: [
          { type: "string", enum: ["tail", "head"] },
          { type: "integer", minimum: 0 }
        ],
        default: "tail"
      })
      expect(readTool?.inputSchema.properties?.max_lines).toMatchObject({ maximum: 2000, default: 200 })
      expect(readTool?.inputSchema.properties?.max_chars).toMatchObject({ maximum: 131072, default: 32768 })
      expect(resultFields(readTool?.outputSchema)).toEqual([
        "session_id",
        "command_id",
        "output",
        "line_count",
        "total_output_lines",
        "first_line",
        "lost_lines",
        "truncated",
        "exit_code",
        "status",
        "redactions"
      ])
      expect((await list(client)).isError ?? false).toBe(false)
    })
  }
})
