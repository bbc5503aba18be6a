/**
 * Every JSON-RPC request gets an answer, over raw stdio pipes to the built binary: a corpus of
 * malformed envelopes (params null, a string or an array, a malformed params._meta, bad ids and
 * versions, batches, non-objects, unparseable and overlong lines) each gets its error answer
 * (-32700 with id null, -32600, -32602 naming the problem), malformed notifications get none, and
 * the server keeps serving and stays up. Needs the build (`npm test` builds first).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "../..")
const bin = join(root, "dist/src/cli/bin.js")

type Json = Record<string, unknown>

let child: ChildProcessWithoutNullStreams
let home: string
const received: Array<Json> = []
let stdoutRest = ""
const nonJson: Array<string> = []

const waitFor = async (what: string, check: () => boolean, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(received)}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}
const send = (line: string) => child.stdin.write(`${line}\n`)
const answerTo = (id: unknown) => received.find((m) => m.id === id && ("result" in m || "error" in m))

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npx tsc -p tsconfig.build.json\` first`)
  home = mkdtempSync(join(tmpdir(), "tp-envelopes-"))
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith("ITERM") && !k.startsWith("TERMPILOT")) env[k] = v
  child = spawn(process.execPath, [bin], { env: { ...env, HOME: home, XDG_STATE_HOME: home, NO_COLOR: "1" } })
  child.stdout.on("data", (chunk: Buffer) => {
    const lines = (stdoutRest + chunk.toString("utf8")).split("\n")
    stdoutRest = lines.pop() ?? ""
    for (const line of lines) {
      try {
        received.push(JSON.parse(line) as Json)
      } catch {
        nonJson.push(line)
      }
    }
  })
  send(
    JSON.stringify({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
    })
  )
  await waitFor("initialize", () => answerTo("init") !== undefined)
  send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
})

afterAll(() => {
  child?.kill()
  rmSync(home, { recursive: true, force: true })
})

/** [line, id of the answer, code, what the message must say] */
const corpus: ReadonlyArray<readonly [string, string | number | null, number, RegExp]> = [
  [
    '{"jsonrpc":"2.0","id":"p-null","method":"tools/list","params":null}',
    "p-null",
    -32600,
    /params must be an object/
  ],
  [
    '{"jsonrpc":"2.0","id":"p-str","method":"tools/list","params":"all"}',
    "p-str",
    -32600,
    /params must be an object/
  ],
  [
    '{"jsonrpc":"2.0","id":"p-arr","method":"tools/call","params":["list_sessions"]}',
    "p-arr",
    -32602,
    /not an array/
  ],
  [
    '{"jsonrpc":"2.0","id":"m-num","method":"tools/list","params":{"_meta":5}}',
    "m-num",
    -32602,
    /_meta must be an object/
  ],
  [
    '{"jsonrpc":"2.0","id":"m-null","method":"tools/list","params":{"_meta":null}}',
    "m-null",
    -32602,
    /_meta must be an object/
  ],
  [
    '{"jsonrpc":"2.0","id":"m-token","method":"tools/call","params":{"name":"list_sessions","_meta":{"progressToken":{}}}}',
    "m-token",
    -32602,
    /progressToken/
  ],
  ['{"jsonrpc":"2.0","id":"no-name","method":"tools/call","params":{}}', "no-name", -32602, /params\.name/],
  [
    '{"jsonrpc":"2.0","id":"args-str","method":"tools/call","params":{"name":"list_sessions","arguments":"x"}}',
    "args-str",
    -32602,
    /params\.arguments/
  ],
  ['{"jsonrpc":"2.0","id":"init-bad","method":"initialize","params":{}}', "init-bad", -32602, /initialize/],
  ['{"jsonrpc":"1.0","id":"v1","method":"tools/list"}', "v1", -32600, /jsonrpc must be "2.0"/],
  ['{"id":"no-version","method":"tools/list"}', "no-version", -32600, /jsonrpc must be "2.0"/],
  ['{"jsonrpc":"2.0","id":"no-method"}', "no-method", -32600, /method is required/],
  ['{"jsonrpc":"2.0","id":"method-num","method":7}', "method-num", -32600, /method must be a string/],
  [
    '[{"jsonrpc":"2.0","id":"in-batch","method":"tools/list"}]',
    "in-batch",
    -32600,
    /batches are not supported/
  ],
  ['{"jsonrpc":"2.0","id":"unknown","method":"no/such/method"}', "unknown", -32601, /not found/i]
]

/** Lines answered with id null, in order. */
const nullIdCorpus: ReadonlyArray<readonly [string, number, RegExp]> = [
  ["this is not json", -32700, /Parse error/],
  ['{"jsonrpc":"2.0","id":1,', -32700, /Parse error/],
  ["[]", -32600, /batches/],
  ["42", -32600, /must be a JSON object/],
  ["null", -32600, /must be a JSON object/],
  ['"tools/list"', -32600, /must be a JSON object/],
  ['{"jsonrpc":"2.0","id":{},"method":"tools/list"}', -32600, /id must be a string or an integer/],
  ['{"jsonrpc":"2.0","id":null,"method":"tools/list"}', -32600, /id must be/],
  ['{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', -32600, /id must be/]
]

describe("raw stdio: every message that carries an id is answered", () => {
  it("answers each malformed request with its own id, code and a message naming the problem", async () => {
    for (const [line] of corpus) send(line)
    for (const [, id, code, message] of corpus) {
      await waitFor(`an answer to ${id}`, () => answerTo(id) !== undefined)
      const error = answerTo(id)?.error as { code: number; message: string }
      expect(error.code, String(id)).toBe(code)
      expect(error.message, String(id)).toMatch(message)
    }
  })

  it("answers unparseable and id-less-by-mistake lines with id null, and malformed notifications not at all", async () => {
    const before = received.filter((m) => m.id === null).length
    send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}') // a notification: no answer
    for (const [line] of nullIdCorpus) send(line)
    send('{"jsonrpc":"2.0","id":"marker","method":"ping"}')
    await waitFor("the marker", () => answerTo("marker") !== undefined)
    const nullAnswers = received.filter((m) => m.id === null).slice(before)
    expect(nullAnswers.map((m) => (m.error as { code: number }).code)).toEqual(
      nullIdCorpus.map(([, code]) => code)
    )
    nullAnswers.forEach((m, i) => {
      expect((m.error as { message: string }).message).toMatch(nullIdCorpus[i]?.[2] ?? /never/)
    })
  })

  it("skips an overlong line with -32700 and keeps serving; stdout stayed JSON-RPC only", async () => {
    const before = received.filter((m) => m.id === null).length
    child.stdin.write(
      `{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"x":"${"a".repeat(11 * 1024 * 1024)}"}}\n`
    )
    send('{"jsonrpc":"2.0","id":"after","method":"tools/list"}')
    await waitFor("tools/list after the long line", () => answerTo("after") !== undefined, 30_000)
    expect(received.filter((m) => m.id === null).slice(before)).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.stringMatching(/longer than/) } }
    ])
    expect(answerTo("huge")).toBeUndefined()
    const result = answerTo("after")?.result as { tools: Array<{ name: string }> } | undefined
    const tools = (result?.tools ?? []).map((t) => t.name)
    expect(tools).toContain("list_sessions")
    expect(child.exitCode).toBeNull()
    expect(nonJson).toEqual([])
  }, 60_000)
})
