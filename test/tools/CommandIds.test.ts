/**
 * CommandIds: a backend key sealed to one session under one process's key comes back exactly, and
 * anything else — one character edited, another session's id, another process's id (another key),
 * a read_terminal cursor, a made-up string — is `invalid_request` naming the field, never a key.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { describe, expect, it } from "vitest"
import { TermPilotError } from "../../src/domain/Errors.js"
import type { CursorMac } from "../../src/domain/ReadCursor.js"
import {
  COMMAND_ID_PREFIX,
  commandIdCodec,
  decodeCommandId,
  encodeCommandId
} from "../../src/tools/CommandIds.js"
import { encodeCursor } from "../../src/tools/Cursors.js"

const SESSION = "tmux:/tmp/tmux-1000/default:4242.1796000000:%3"
const OTHER = "w0t0p0:0A1B2C3D-0000-4000-8000-000000000001"
const KEY = "tp7f3a9c:41"

/** A codec under its own random key: stands for another TermPilot process. */
const processWithKey = (): CursorMac => {
  const key = randomBytes(32)
  return {
    sign: (payload) => createHmac("sha256", key).update(payload).digest(),
    same: (a, b) => a.length === b.length && timingSafeEqual(a, b)
  }
}

const refused = (value: string | TermPilotError, field: string) => {
  expect(value).toBeInstanceOf(TermPilotError)
  expect((value as TermPilotError).code).toBe("invalid_request")
  expect((value as TermPilotError).message).toMatch(new RegExp(`^${field} is not a command_id`))
}

describe("CommandIds", () => {
  it("round trip: the id of a key decodes to that key, for that session", () => {
    for (const key of [KEY, "8C9D0E1F-2A3B-4C5D-8E6F-7A8B9C0D1E2F", "ä|ö|x", "1"]) {
      const id = encodeCommandId(SESSION, key)
      expect(id.startsWith(COMMAND_ID_PREFIX)).toBe(true)
      expect(id.slice(COMMAND_ID_PREFIX.length)).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(decodeCommandId(SESSION, id, "command_id")).toBe(key)
    }
  })

  it("the id does not show the key (opaque) and differs per session", () => {
    const id = encodeCommandId(SESSION, KEY)
    expect(id).not.toContain(KEY)
    expect(encodeCommandId(OTHER, KEY)).not.toBe(id)
  })

  it("any one character edited → invalid_request", () => {
    const id = encodeCommandId(SESSION, KEY)
    for (let i = 0; i < id.length; i++) {
      for (const c of ["A", "_", "9", "-"]) {
        if (id[i] === c) continue
        refused(decodeCommandId(SESSION, id.slice(0, i) + c + id.slice(i + 1), "command_id"), "command_id")
      }
    }
    for (const cut of [id.slice(0, -1), id.slice(1), `${id}A`, id.slice(COMMAND_ID_PREFIX.length)])
      refused(decodeCommandId(SESSION, cut, "since"), "since")
  })

  it("another session's id → invalid_request", () => {
    refused(decodeCommandId(OTHER, encodeCommandId(SESSION, KEY), "command_id"), "command_id")
  })

  it("another process's id (another key) → invalid_request, and this process's id there too", () => {
    const other = commandIdCodec(processWithKey())
    const theirs = other.encode(SESSION, KEY)
    expect(other.decode(SESSION, theirs, "command_id")).toBe(KEY)
    refused(decodeCommandId(SESSION, theirs, "command_id"), "command_id")
    refused(other.decode(SESSION, encodeCommandId(SESSION, KEY), "command_id"), "command_id")
  })

  it("a read_terminal cursor, a made-up id and an empty string → invalid_request", () => {
    const cursor = encodeCursor(SESSION, { row: 7, anchor: null, rowDigest: null })
    for (const id of [
      cursor,
      `${COMMAND_ID_PREFIX}${cursor}`,
      `${COMMAND_ID_PREFIX}${"A".repeat(40)}`,
      "",
      "cmd_"
    ])
      refused(decodeCommandId(SESSION, id, "command_id"), "command_id")
  })
})
