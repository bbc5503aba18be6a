/**
 * ReadCursor — the opaque `cursor` read_terminal returns and takes back as `since`: a backend's
 * CursorPosition bound to the one session it was read from, authenticated with an HMAC-SHA256
 * under a key drawn at random when the process starts. A cursor this process did not hand out —
 * made up, edited by a single character, or from an earlier run of TermPilot (a restart draws a
 * new key) — is an `invalid_request`, never decoded into some other position; another session's
 * cursor is one too. Nothing here touches a terminal.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { fail, type TermPilotError } from "../services/Errors.js"
import type { CursorPosition } from "../services/Terminal.js"

const VERSION = "2"
const MAX_CURSOR_LENGTH = 256
/** Bytes of the HMAC kept in a cursor (128 bits). */
const MAC_BYTES = 16
/** This process's key: cursors do not outlive it. */
const KEY = randomBytes(32)

const digest16 = (text: string): string =>
  createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16)

/** The digest a backend keeps of the exact text of the cursor's own row (16 hex). */
export const rowDigest = (text: string): string => digest16(text)

const sessionTag = (sessionId: string): string => digest16(sessionId).slice(0, 12)

const macOf = (payload: Buffer): Buffer =>
  createHmac("sha256", KEY).update(payload).digest().subarray(0, MAC_BYTES)

/** The cursor string for `position` in `sessionId`: the MAC, then the fields, base64url. */
export const encodeCursor = (sessionId: string, position: CursorPosition): string => {
  const fields = [
    VERSION,
    sessionTag(sessionId),
    String(position.row),
    position.anchor ?? "",
    position.rowDigest ?? ""
  ]
  const payload = Buffer.from(fields.join("|"), "utf8")
  return Buffer.concat([macOf(payload), payload]).toString("base64url")
}

const notACursor = () =>
  fail(
    "invalid_request",
    "since is not a cursor returned by read_terminal in this TermPilot process (cursors do not survive a " +
      "restart); pass a cursor exactly as returned, or read without since to get a new one."
  )

const HEX16 = /^([0-9a-f]{16})?$/

/** The position a cursor of `sessionId` names; `invalid_request` for any other string. */
export const decodeCursor = (sessionId: string, cursor: string): CursorPosition | TermPilotError => {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    return notACursor()
  }
  const bytes = Buffer.from(cursor, "base64url")
  // Only the one spelling this process wrote: base64url's spare bits make other spellings decode alike.
  if (bytes.length <= MAC_BYTES || bytes.toString("base64url") !== cursor) return notACursor()
  const payload = bytes.subarray(MAC_BYTES)
  if (!timingSafeEqual(bytes.subarray(0, MAC_BYTES), macOf(payload))) return notACursor()
  // Authentic from here on: the checks below guard against a format change, not against forgery.
  const fields = payload.toString("utf8").split("|")
  const [version, tag, row, anchor = "", digest = ""] = fields
  if (fields.length !== 5 || version !== VERSION || tag === undefined || row === undefined)
    return notACursor()
  if (!/^(0|[1-9]\d{0,15})$/.test(row) || !HEX16.test(anchor) || !HEX16.test(digest)) return notACursor()
  if (tag !== sessionTag(sessionId)) {
    return fail(
      "invalid_request",
      `since is a cursor of another session, not of '${sessionId}'; cursors are per session: read this session without since to get one.`
    )
  }
  return { row: Number(row), anchor: anchor === "" ? null : anchor, rowDigest: digest === "" ? null : digest }
}
