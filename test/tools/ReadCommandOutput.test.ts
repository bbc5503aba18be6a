/**
 * read_command_output through the real MCP SDK client over a RecordingBackend: a listed command_id
 * reaches Terminal.commandText as its key with the bounds and `from` asked for; the text comes back
 * cleaned and redacted with the backend's counts; a command_id edited, made up, of another session
 * or of another TermPilot process is `invalid_request` and commandText is never called; the
 * backend's own refusals (output_unavailable, an unknown key) pass through.
 */
import { createHmac, randomBytes } from "node:crypto"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { UNTRUSTED_TERMINAL_NOTICE } from "../../src/domain/Hygiene.js"
import { fail } from "../../src/services/Errors.js"
import type { CommandText } from "../../src/services/Terminal.js"
import { commandIdCodec } from "../../src/tools/CommandIds.js"
import { processMac } from "../../src/tools/ProcessMac.js"
import {
  callsOf,
  type Opened,
  openWithRecords,
  sampleRecords,
  structured,
  summaryOf
} from "../support/CommandRecords.js"
import type { Overrides } from "../support/RecordingBackend.js"
import { SESSION_ID } from "../support/RecordingBackend.js"

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

/** What the backend reads for any key: 3 lines, one with a colour escape and a secret. */
const canned: CommandText = {
  text: `FAIL src/a.test.ts\n\u001b[31mAWS_SECRET_ACCESS_KEY=${AWS_SECRET}\u001b[0m\nTests: 1 failed`,
  lineCount: 3,
  truncated: true,
  totalLines: 57,
  firstLine: 54,
  lostLines: 0,
  exitCode: 2,
  status: "finished"
}

const withText: Overrides = { terminal: { commandText: () => Effect.succeed(canned) } }

const open = async (overrides: Overrides = withText): Promise<Opened> => {
  const opened = await openWithRecords(sampleRecords, overrides)
  close = opened.close
  return opened
}

/** The command_ids list_commands returns for `sessionId`, oldest first. */
const listedIds = async (client: Opened["client"], sessionId = SESSION_ID) => {
  const result = await client.callTool({ name: "list_commands", arguments: { session_id: sessionId } })
  return (structured(result).commands as ReadonlyArray<{ command_id: string }>).map((c) => c.command_id)
}

const readOutput = (client: Opened["client"], args: Record<string, unknown>) =>
  client.callTool({ name: "read_command_output", arguments: { session_id: SESSION_ID, ...args } })

describe("read_command_output", () => {
  it("reads the listed command's output by its key: fields mapped, text cleaned and redacted", async () => {
    const { client, backend, audited } = await open()
    const [first] = await listedIds(client)
    const result = await readOutput(client, { command_id: first })
    expect(result.isError ?? false).toBe(false)
    expect(callsOf(backend, "commandText").map((c) => c.args)).toEqual([
      [SESSION_ID, "tp7f3a9c:41", { maxLines: 200, maxChars: 32768 }, "tail"]
    ])
    expect(structured(result)).toEqual({
      session_id: SESSION_ID,
      command_id: first,
      output: "FAIL src/a.test.ts\nAWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_access_key]\nTests: 1 failed",
      line_count: 3,
      total_output_lines: 57,
      first_line: 54,
      lost_lines: 0,
      truncated: true,
      exit_code: 2,
      status: "finished",
      redactions: 1
    })
    expect(JSON.stringify(result)).not.toContain(AWS_SECRET)
    expect(summaryOf(result).startsWith(UNTRUSTED_TERMINAL_NOTICE)).toBe(true)
    expect(summaryOf(result)).toMatch(/Read 3 line\(s\) from line 54 of 57 .*status finished, exit_code 2/)
    // The audit trail digests exactly the output the model was shown; the listing, its JSON text.
    expect(audited().map((e) => (e._tag === "Read" ? [e.tool, e.sessionId, e.digestOf] : e._tag))).toEqual([
      ["list_commands", SESSION_ID, "json_text"],
      ["read_command_output", SESSION_ID, "content"]
    ])
    expect(audited()[1]).toMatchObject({ returned: structured(result).output })
  })

  it("passes max_lines, max_chars and from (head, an offset) on as asked", async () => {
    const { client, backend } = await open()
    const [, second] = await listedIds(client)
    await readOutput(client, { command_id: second, from: "head", max_lines: 10 })
    await readOutput(client, { command_id: second, from: 40, max_chars: 500 })
    await readOutput(client, { command_id: second, from: 0, max_lines: 2000, max_chars: 131072 })
    expect(callsOf(backend, "commandText").map((c) => c.args)).toEqual([
      [SESSION_ID, "tp7f3a9c:42", { maxLines: 10, maxChars: 32768 }, "head"],
      [SESSION_ID, "tp7f3a9c:42", { maxLines: 200, maxChars: 500 }, 40],
      [SESSION_ID, "tp7f3a9c:42", { maxLines: 2000, maxChars: 131072 }, 0]
    ])
  })

  const badArguments: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
    [{ from: "middle" }, `from must be "tail", "head" or an integer line offset of 0 or more`],
    [{ from: -1 }, `from must be "tail", "head" or an integer line offset of 0 or more`],
    [{ from: 1.5 }, `from must be "tail", "head" or an integer line offset of 0 or more`],
    [{ from: "3" }, `from must be "tail", "head" or an integer line offset of 0 or more`],
    [{ max_lines: 0 }, "max_lines must be an integer between 1 and 2000"],
    [{ max_lines: 2001 }, "max_lines must be an integer between 1 and 2000"],
    [{ max_chars: 131073 }, "max_chars must be an integer between 1 and 131072"]
  ]
  for (const [args, message] of badArguments) {
    it(`${JSON.stringify(args)} → invalid_request, nothing read`, async () => {
      const { client, backend } = await open()
      const [first] = await listedIds(client)
      const result = await readOutput(client, { command_id: first, ...args })
      expect(structured(result)).toEqual({ error_code: "invalid_request", message })
      expect(callsOf(backend, "commandText")).toEqual([])
    })
  }

  it("a command_id edited, made up, of another session or another process → invalid_request, nothing read", async () => {
    const other = "tmux:/tmp/tmux-1000/default:4242.1796000000:%3"
    const { client, backend } = await open()
    const [id = ""] = await listedIds(client)
    const [theirs] = await listedIds(client, other)
    const key = randomBytes(32)
    const anotherProcess = commandIdCodec({
      sign: (payload) => createHmac("sha256", key).update(payload).digest(),
      same: processMac.same
    }).encode(SESSION_ID, "tp7f3a9c:41")
    const edited = [...Array(id.length).keys()]
      .filter((i) => i >= 4)
      .map((i) => id.slice(0, i) + (id[i] === "A" ? "B" : "A") + id.slice(i + 1))
    for (const command_id of [...edited, theirs, anotherProcess, "cmd_made-up", "tp7f3a9c:41", `${id}A`]) {
      const result = await readOutput(client, { command_id })
      expect(structured(result), command_id).toMatchObject({ error_code: "invalid_request" })
      expect(String(structured(result).message)).toMatch(
        new RegExp(`^command_id is not a command_id that list_commands returned for session '${SESSION_ID}'`)
      )
    }
    expect(callsOf(backend, "commandText")).toEqual([])
    // The genuine one still reads.
    expect((await readOutput(client, { command_id: id })).isError ?? false).toBe(false)
    expect(callsOf(backend, "commandText")).toHaveLength(1)
  })

  it("the backend's output_unavailable passes through", async () => {
    const why = "Its output is no longer in the pane's history; only its last 2000 lines are kept."
    const { client } = await open({
      terminal: { commandText: () => Effect.fail(fail("output_unavailable", why)) }
    })
    const [, second] = await listedIds(client)
    const result = await readOutput(client, { command_id: second })
    expect(result.isError).toBe(true)
    expect(structured(result)).toEqual({ error_code: "output_unavailable", message: why })
  })

  it("a genuine command_id whose command the backend no longer knows is the backend's invalid_request", async () => {
    const { client, backend } = await open({})
    const [first] = await listedIds(client)
    const result = await readOutput(client, { command_id: first })
    expect(structured(result)).toEqual({
      error_code: "invalid_request",
      message: "No command 'tp7f3a9c:41' is known."
    })
    expect(callsOf(backend, "commandText")).toHaveLength(1)
  })

  it("lost_lines from the backend is reported, and the summary says so", async () => {
    const { client } = await open({
      terminal: {
        commandText: () =>
          Effect.succeed({ ...canned, text: "tail line", lineCount: 1, firstLine: 900, lostLines: 120 })
      }
    })
    const [first] = await listedIds(client)
    const result = await readOutput(client, { command_id: first })
    expect(structured(result)).toMatchObject({ first_line: 900, lost_lines: 120, line_count: 1 })
    expect(summaryOf(result)).toMatch(/its first 120 line\(s\) left the history/)
  })
})
