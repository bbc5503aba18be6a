/**
 * read_terminal's `since` and `cursor` through the real MCP SDK client over a RecordingBackend:
 * every read returns a cursor that, passed back, reaches Terminal.read as the position the backend
 * reported; a string that is not a cursor of this session is `invalid_request` with nothing read.
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { boundTail } from "../../src/domain/TextBounds.js"
import type { CursorPosition } from "../../src/services/Terminal.js"
import { type McpHarness, openMcpHarness } from "../support/McpHarness.js"
import {
  makeRecordingBackend,
  type Overrides,
  SESSION_ID,
  sampleScreen
} from "../support/RecordingBackend.js"

let harness: McpHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const open = async (overrides: Overrides = {}) => {
  const backend = makeRecordingBackend(overrides)
  harness = await openMcpHarness(backend.layer)
  await harness.client.listTools()
  return { client: harness.client, backend }
}

type Result = Awaited<ReturnType<McpHarness["client"]["callTool"]>>
const structured = (result: Result) => result.structuredContent as Record<string, unknown>
const summary = (result: Result) => (result.content as ReadonlyArray<{ text?: string }>)[0]?.text ?? ""
const read = (client: McpHarness["client"], args: Record<string, unknown>) =>
  client.callTool({ name: "read_terminal", arguments: { session_id: SESSION_ID, ...args } })

/** A backend whose next reads end at the given positions, the since reads reporting `lost`. */
const positions = (ends: ReadonlyArray<CursorPosition>, lost = false): Overrides => {
  let n = 0
  return {
    terminal: {
      read: (_id, bounds, since) =>
        Effect.sync(() => ({
          ...boundTail(since === undefined ? sampleScreen : sampleScreen.slice(-1), bounds),
          readiness: "busy" as const,
          cursor: ends[Math.min(n++, ends.length - 1)] ?? { row: 0, anchor: null, rowDigest: null },
          cursorLost: since !== undefined && lost
        }))
    }
  }
}

describe("read_terminal since/cursor", () => {
  it("a read's cursor, passed back as since, reaches the backend as the position it reported", async () => {
    const first = { row: 1_204, anchor: "9c1185a5c5e9fc54", rowDigest: "00ff00ff00ff00ff" }
    const second = { row: 1_254, anchor: "0123456789abcdef", rowDigest: null }
    const { client, backend } = await open(positions([first, second]))
    const a = await read(client, {})
    expect(structured(a)).toMatchObject({ cursor: expect.any(String), cursor_lost: false })
    const b = await read(client, { since: structured(a).cursor })
    expect(backend.calls().map((c) => c.args)).toEqual([
      [SESSION_ID, { maxLines: 200, maxChars: 32768 }],
      [SESSION_ID, { maxLines: 200, maxChars: 32768 }, first]
    ])
    expect(structured(b)).toMatchObject({ content: "ada@laptop ~/src %", cursor_lost: false })
    expect(summary(b)).toMatch(/Read 1 new line\(s\) since the cursor from session/)
    expect(structured(b).cursor).not.toEqual(structured(a).cursor)
    await read(client, { since: structured(b).cursor })
    expect(backend.calls()[2]?.args[2]).toEqual(second)
  })

  it("cursor_lost from the backend is reported, and the summary says so", async () => {
    const { client } = await open(positions([{ row: 10, anchor: null, rowDigest: null }], true))
    const a = await read(client, {})
    const b = await read(client, { since: structured(a).cursor })
    expect(structured(b).cursor_lost).toBe(true)
    expect(summary(b)).toMatch(/cursor_lost/)
  })

  const refused: ReadonlyArray<readonly [string, () => unknown, RegExp]> = [
    [
      "a string that is not a cursor",
      () => "not-a-cursor!",
      /since is not a cursor returned by read_terminal/
    ],
    ["an empty string", () => "", /since is not a cursor/],
    [
      "a cursor-like string with a malformed row",
      () => Buffer.from("1|abc|-12|", "utf8").toString("base64url"),
      /not a cursor/
    ],
    ["a 300-character string", () => "A".repeat(300), /^since must be a string of at most 256 characters/],
    ["a number", () => 42, /^since must be a string/]
  ]
  for (const [name, since, message] of refused) {
    it(`since as ${name} → invalid_request, nothing read`, async () => {
      const { client, backend } = await open()
      const result = await read(client, { since: since() })
      expect(result.isError).toBe(true)
      expect(structured(result)).toMatchObject({ error_code: "invalid_request" })
      expect(String(structured(result).message)).toMatch(message)
      expect(backend.calls()).toEqual([])
    })
  }

  it("a real cursor with any one character changed → invalid_request, nothing read", async () => {
    const { client, backend } = await open(
      positions([{ row: 1_204, anchor: "9c1185a5c5e9fc54", rowDigest: null }])
    )
    const cursor = String(structured(await read(client, {})).cursor)
    for (let i = 0; i < cursor.length; i++) {
      for (const c of ["A", "_", "9"]) {
        if (cursor[i] === c) continue
        const result = await read(client, { since: cursor.slice(0, i) + c + cursor.slice(i + 1) })
        expect(structured(result), `edited at ${i} to ${c}`).toMatchObject({ error_code: "invalid_request" })
      }
    }
    // Cut short or lengthened: not a cursor either.
    for (const since of [cursor.slice(0, -1), cursor.slice(1), `${cursor}A`]) {
      expect(structured(await read(client, { since }))).toMatchObject({ error_code: "invalid_request" })
    }
    expect(backend.calls()).toHaveLength(1)
  })

  it("a cursor in the format TermPilot writes but not written by it (no valid MAC) → invalid_request", async () => {
    const { client, backend } = await open()
    const tag = createHash("sha256").update(SESSION_ID, "utf8").digest("hex").slice(0, 12)
    const payload = Buffer.from(`2|${tag}|5||`, "utf8")
    for (const mac of [Buffer.alloc(16), createHash("sha256").update(payload).digest().subarray(0, 16)]) {
      const result = await read(client, { since: Buffer.concat([mac, payload]).toString("base64url") })
      expect(String(structured(result).message)).toMatch(/not a cursor returned by read_terminal/)
    }
    // The format of TermPilot 0.2.0 (no MAC at all) is refused too.
    const old = await read(client, { since: Buffer.from(`1|${tag}|5|`, "utf8").toString("base64url") })
    expect(structured(old)).toMatchObject({ error_code: "invalid_request" })
    expect(backend.calls()).toEqual([])
  })

  it("another session's cursor → invalid_request before anything is read", async () => {
    const other = "tmux:/tmp/tmux-1000/default:4242.1796000000:%3"
    const { client, backend } = await open({
      terminal: {
        getSession: () => Effect.die("not used"),
        read: (id, bounds) =>
          Effect.succeed({
            ...boundTail(sampleScreen, bounds),
            readiness: "ready" as const,
            cursor: { row: 7, anchor: id === other ? "aaaaaaaaaaaaaaaa" : null, rowDigest: null },
            cursorLost: false
          })
      }
    })
    const theirs = await client.callTool({ name: "read_terminal", arguments: { session_id: other } })
    const calls = backend.calls().length
    const result = await read(client, { since: structured(theirs).cursor })
    expect(structured(result)).toMatchObject({ error_code: "invalid_request" })
    expect(String(structured(result).message)).toMatch(/cursor of another session/)
    expect(backend.calls()).toHaveLength(calls)
  })
})
