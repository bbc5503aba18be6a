/**
 * ReadCursor: a cursor decodes to exactly the position it was made of, for its own session only;
 * a cursor made by another run of TermPilot (a fresh module instance draws a fresh key, as a
 * restart does) is refused, as is any other spelling of the same bytes.
 */
import { describe, expect, it, vi } from "vitest"
import { TermPilotError } from "../../src/services/Errors.js"
import { decodeCursor, encodeCursor } from "../../src/tools/Cursors.js"

const SESSION = "tmux:/tmp/tmux-1000/default:4242.1796000000:%3"
const positions = [
  { row: 0, anchor: null, rowDigest: null },
  { row: 1_204, anchor: "9c1185a5c5e9fc54", rowDigest: "0123456789abcdef" },
  { row: 9_007_199_254_740, anchor: null, rowDigest: "ffffffffffffffff" }
]

const codeOf = (value: unknown) => (value instanceof TermPilotError ? value.code : "decoded")

describe("ReadCursor", () => {
  it("decodes a cursor to the position it was made of", () => {
    for (const position of positions) {
      const cursor = encodeCursor(SESSION, position)
      expect(cursor).toMatch(/^[A-Za-z0-9_-]{1,256}$/)
      expect(decodeCursor(SESSION, cursor)).toEqual(position)
    }
  })

  it("refuses another session's cursor with its own message", () => {
    const result = decodeCursor(`${SESSION}x`, encodeCursor(SESSION, positions[1]!))
    expect(codeOf(result)).toBe("invalid_request")
    expect((result as TermPilotError).message).toMatch(/cursor of another session/)
  })

  it("refuses every other spelling of the same bytes (base64url's spare bits)", () => {
    let tried = 0
    for (const position of positions) {
      const cursor = encodeCursor(SESSION, position)
      const bytes = Buffer.from(cursor, "base64url")
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
      const aliases = [...alphabet]
        .map((c) => cursor.slice(0, -1) + c)
        .filter((c) => c !== cursor && Buffer.from(c, "base64url").equals(bytes))
      for (const alias of aliases) expect(codeOf(decodeCursor(SESSION, alias))).toBe("invalid_request")
      tried += aliases.length
    }
    expect(tried).toBeGreaterThan(0)
  })

  it("refuses a cursor of an earlier run: cursors do not survive a restart", async () => {
    const cursor = encodeCursor(SESSION, positions[1]!)
    vi.resetModules()
    const restarted = await import("../../src/tools/Cursors.js")
    expect(restarted.decodeCursor).not.toBe(decodeCursor)
    const result = restarted.decodeCursor(SESSION, cursor)
    expect((result as { code?: string }).code).toBe("invalid_request")
    expect((result as { message?: string }).message).toMatch(/do not survive a restart/)
    // Its own cursors it takes.
    expect(restarted.decodeCursor(SESSION, restarted.encodeCursor(SESSION, positions[1]!))).toEqual(
      positions[1]
    )
  })
})
