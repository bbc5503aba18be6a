/**
 * End to end, malformed arguments through the real MCP client: wrong JSON types, missing and
 * unknown fields, forbidden characters, oversized commands and out-of-range bounds are each
 * invalid_request naming the field, nothing reaches the (ready) terminal, and the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listSessions, runCommand, waitForReadiness } from "../support/E2eHelpers.js"
import { call, type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

let rig: FakeIterm2Rig
let id: string

beforeAll(async () => {
  rig = await openFakeIterm2Rig()
  id = (await rig.world.createWindow({ title: "bad-inputs" })).sessionId
})

afterAll(async () => {
  await rig?.close()
})

interface Case {
  readonly name: string
  readonly tool: string
  /** Built lazily: the session id is only known after beforeAll. */
  readonly args: () => Record<string, unknown>
  /** The field the message must name. */
  readonly field: string
}

const run = (name: string, extra: (id: string) => Record<string, unknown>, field: string): Case => ({
  name,
  tool: "run_command",
  args: () => extra(id),
  field
})

const CMD = "echo BAD-INPUT-MUST-NOT-RUN"

const cases: ReadonlyArray<Case> = [
  run("number as session_id", () => ({ session_id: 42, command: CMD }), "session_id"),
  run(
    "string as timeout_seconds",
    (s) => ({ session_id: s, command: CMD, timeout_seconds: "5" }),
    "timeout_seconds"
  ),
  run(
    '"true" as wait_for_completion',
    (s) => ({ session_id: s, command: CMD, wait_for_completion: "true" }),
    "wait_for_completion"
  ),
  run("array as command", (s) => ({ session_id: s, command: [CMD] }), "command"),
  run("null as command", (s) => ({ session_id: s, command: null }), "command"),
  run("missing command", (s) => ({ session_id: s }), "command"),
  run("missing session_id", () => ({ command: CMD }), "session_id"),
  run("blank session_id", () => ({ session_id: "  ", command: CMD }), "session_id"),
  run("ESC in session_id", (s) => ({ session_id: `${s}\u001b`, command: CMD }), "session_id"),
  run("empty command", (s) => ({ session_id: s, command: "" }), "command"),
  run("blank command", (s) => ({ session_id: s, command: "   " }), "command"),
  run("NUL", (s) => ({ session_id: s, command: `${CMD}\u0000` }), "command"),
  run("ESC", (s) => ({ session_id: s, command: `${CMD}\u001b[31m` }), "command"),
  run("TAB", (s) => ({ session_id: s, command: `echo\t${CMD}` }), "command"),
  run("newline", (s) => ({ session_id: s, command: `${CMD}\nid` }), "command"),
  run("CR", (s) => ({ session_id: s, command: `${CMD}\r` }), "command"),
  run("DEL", (s) => ({ session_id: s, command: `${CMD}\u007f` }), "command"),
  run("C1 NEL", (s) => ({ session_id: s, command: `${CMD}\u0085id` }), "command"),
  run("U+2028 line separator", (s) => ({ session_id: s, command: `${CMD}\u2028id` }), "command"),
  run("U+202E right-to-left override", (s) => ({ session_id: s, command: `echo \u202Etxt.exe` }), "command"),
  run("U+2066 left-to-right isolate", (s) => ({ session_id: s, command: `echo \u2066a\u2069` }), "command"),
  run("lone surrogate", (s) => ({ session_id: s, command: `echo \ud800` }), "command"),
  ...(
    [
      ["zero-width space inside echo", "ec\u200bho BAD-INPUT-MUST-NOT-RUN"],
      ["zero-width joiner inside echo", "ec\u200dho BAD-INPUT-MUST-NOT-RUN"],
      ["word joiner", `${CMD}\u2060`],
      ["soft hyphen", `ec\u00adho ${CMD}`],
      ["BOM", `\ufeff${CMD}`],
      ["tag characters", `${CMD} \u{E0072}\u{E006D}`],
      ["no-break space", `echo\u00a0${CMD}`],
      ["ideographic space", `echo\u3000${CMD}`],
      ["Hangul filler", `echo \u3164${CMD}`],
      ["braille blank", `echo\u2800${CMD}`]
    ] as const
  ).map(([name, command]) => run(name, (s) => ({ session_id: s, command }), "command")),
  run("100 kB command", (s) => ({ session_id: s, command: `echo ${"x".repeat(100_000)}` }), "command"),
  run("8193 code points", (s) => ({ session_id: s, command: "😀".repeat(8193) }), "command"),
  run("timeout_seconds 0", (s) => ({ session_id: s, command: CMD, timeout_seconds: 0 }), "timeout_seconds"),
  run(
    "timeout_seconds 301",
    (s) => ({ session_id: s, command: CMD, timeout_seconds: 301 }),
    "timeout_seconds"
  ),
  run("timeout_seconds -1", (s) => ({ session_id: s, command: CMD, timeout_seconds: -1 }), "timeout_seconds"),
  run(
    "max_output_chars 0",
    (s) => ({ session_id: s, command: CMD, max_output_chars: 0 }),
    "max_output_chars"
  ),
  run(
    "max_output_chars 131073",
    (s) => ({ session_id: s, command: CMD, max_output_chars: 131073 }),
    "max_output_chars"
  ),
  run(
    "max_output_chars 10.5",
    (s) => ({ session_id: s, command: CMD, max_output_chars: 10.5 }),
    "max_output_chars"
  ),
  run("unknown extra argument", (s) => ({ session_id: s, command: CMD, force: true }), "force"),
  {
    name: "max_lines 0",
    tool: "read_terminal",
    args: () => ({ session_id: id, max_lines: 0 }),
    field: "max_lines"
  },
  {
    name: "max_lines 2001",
    tool: "read_terminal",
    args: () => ({ session_id: id, max_lines: 2001 }),
    field: "max_lines"
  },
  {
    name: "max_chars 0",
    tool: "read_terminal",
    args: () => ({ session_id: id, max_chars: 0 }),
    field: "max_chars"
  },
  {
    name: "max_chars 131073",
    tool: "read_terminal",
    args: () => ({ session_id: id, max_chars: 131073 }),
    field: "max_chars"
  },
  {
    name: 'max_lines "5"',
    tool: "read_terminal",
    args: () => ({ session_id: id, max_lines: "5" }),
    field: "max_lines"
  },
  { name: "read_terminal without session_id", tool: "read_terminal", args: () => ({}), field: "session_id" },
  {
    name: "read_terminal unknown argument",
    tool: "read_terminal",
    args: () => ({ session_id: id, lines: 5 }),
    field: "lines"
  },
  {
    name: "number as request_id",
    tool: "get_command_result",
    args: () => ({ request_id: 5 }),
    field: "request_id"
  },
  {
    name: "wait_seconds 301",
    tool: "get_command_result",
    args: () => ({ request_id: "abc", wait_seconds: 301 }),
    field: "wait_seconds"
  },
  {
    name: "wait_seconds -1",
    tool: "get_command_result",
    args: () => ({ request_id: "abc", wait_seconds: -1 }),
    field: "wait_seconds"
  },
  {
    name: "list_sessions with an argument",
    tool: "list_sessions",
    args: () => ({ all: true }),
    field: "all"
  },
  {
    name: "get_current_session with an argument",
    tool: "get_current_session",
    args: () => ({ session_id: id }),
    field: "session_id"
  }
]

describe("bad inputs through the MCP client", () => {
  it.each(cases)("$tool: $name → invalid_request, nothing sent", async ({ tool, args, field }) => {
    const { world, mcp } = rig
    const before = world.ledger.size
    const result = await call(mcp, tool, args())
    expect(result.isError).toBe(true)
    expect(result.data.error_code).toBe("invalid_request")
    expect(String(result.data.message)).toContain(field)
    expect(world.ledger.size).toBe(before)
    expect(before).toBe(0)
  })

  it("after all of them the session is untouched and the server still serves", async () => {
    const { world, mcp } = rig
    expect(world.ledger.size).toBe(0)
    expect(world.screenText(id)).not.toContain("BAD-INPUT-MUST-NOT-RUN")
    await waitForReadiness(mcp, id, "ready")
    const sessions = await listSessions(mcp)
    expect(sessions.map((s) => s.session_id)).toEqual([id])
    // Leading and trailing spaces are kept as typed: that is valid, and is typed exactly.
    const ok = await runCommand(mcp, { session_id: id, command: " echo still-serving " })
    expect(ok.data).toMatchObject({ status: "completed", exit_code: 0, output: "still-serving" })
    expect(world.ledger.all().map((e) => e.text)).toEqual([" echo still-serving \r"])
  })

  it("an emoji sequence with its joiners is ordinary text, typed exactly", async () => {
    const { world, mcp } = rig
    const family = "👩\u200d💻 🏳\ufe0f\u200d🌈 café 日本"
    const ok = await runCommand(mcp, {
      session_id: id,
      command: `echo '${family}' | od -An -tx1 | tr -d ' \\n'`
    })
    expect(ok.data).toMatchObject({ status: "completed", exit_code: 0 })
    expect(ok.data.output).toBe(Buffer.from(`${family}\n`, "utf8").toString("hex"))
    expect(world.ledger.all().at(-1)?.text).toBe(`echo '${family}' | od -An -tx1 | tr -d ' \\n'\r`)
  })
})
