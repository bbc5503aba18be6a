/**
 * The audit digests match a transcript: through the real MCP surface, a read's line holds the size
 * and SHA-256 of read_terminal's `content` exactly as the client received it (after hygiene and
 * redaction), a listing's those of the JSON text block it received, and a command's those of the
 * returned `output`. Anyone holding the transcript can check the trail line by line.
 */
import { createHash } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Effect, Layer } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { auditLogLayer } from "../../src/layers/audit/AuditLogLive.js"
import type { RunRequest } from "../../src/services/CommandRunner.js"
import { openMcpHarness } from "../support/McpHarness.js"
import { completedResult, makeRecordingBackend, SESSION_ID } from "../support/RecordingBackend.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")
const codePoints = (text: string) => [...text].length

// Escape sequences and a zero-width space (stripped) and a token (redacted): what is returned
// differs from what the terminal held, and the digest must be of what is returned.
const SCREEN =
  "\u001b[31mred\u001b[0m prompt\u200b %\nexport GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\nhé 😀"
const OUTPUT = "done\u001b[K\npassword=hunter2hunter2\n"

describe("audit digests match what the client received", () => {
  it("read_terminal: content; list_sessions: the JSON text block; run_command: output", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tp-audit-digest-"))
    dirs.push(dir)
    const path = join(dir, "audit.jsonl")
    const backend = makeRecordingBackend({
      terminal: {
        read: () =>
          Effect.succeed({
            text: SCREEN,
            lineCount: 3,
            truncated: false,
            readiness: "ready" as const,
            cursor: { row: 3, anchor: null, rowDigest: null },
            cursorLost: false
          })
      },
      runner: {
        run: (request: RunRequest) => Effect.succeed({ ...completedResult(request), output: OUTPUT })
      }
    })
    const audit = auditLogLayer({ enabled: true, path, maxBytes: 1 << 20, redact: true }).pipe(
      Layer.provide(NodeFileSystem.layer)
    )
    const mcp = await openMcpHarness(Layer.merge(backend.layer, audit))
    const read = await mcp.client.callTool({ name: "read_terminal", arguments: { session_id: SESSION_ID } })
    const list = await mcp.client.callTool({ name: "list_sessions", arguments: {} })
    const run = await mcp.client.callTool({
      name: "run_command",
      arguments: { session_id: SESSION_ID, command: "make" }
    })
    await mcp.close() // drains the audit writer

    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.map((l) => l.tool)).toEqual(["read_terminal", "list_sessions", "run_command"])

    const content = (read.structuredContent as { content: string }).content
    expect(content).not.toBe(SCREEN) // hygiene and redaction did change it
    expect(lines[0]).toMatchObject({
      digest_of: "content",
      returned_chars: codePoints(content),
      returned_sha256: sha256(content)
    })

    const blocks = list.content as Array<{ type: string; text: string }>
    const jsonBlock = blocks[1]?.text ?? ""
    expect(JSON.parse(jsonBlock)).toEqual(list.structuredContent)
    expect(lines[1]).toMatchObject({
      digest_of: "json_text",
      returned_chars: codePoints(jsonBlock),
      returned_sha256: sha256(jsonBlock)
    })

    const output = (run.structuredContent as { output: string }).output
    expect(output).not.toBe(OUTPUT)
    expect(lines[2]).toMatchObject({ output_chars: codePoints(output), output_sha256: sha256(output) })
  })
})
