/**
 * ReadCursor — the opaque `cursor` read_terminal returns and takes back as `since`, pure: a
 * backend's CursorPosition bound to the one session it was read from and authenticated by a MAC
 * the caller keys (src/tools/Cursors.ts: HMAC-SHA256 under a key drawn when the process starts).
 * A cursor that MAC does not verify — made up, edited by a single character, or from an earlier run
 * of TermPilot (a restart draws a new key) — is an `invalid_request`, never decoded into some other
 * position; another session's cursor is one too. Also the digest of a row the backends keep in a
 * position. Nothing here touches a terminal.
 */
import { fail, type TermPilotError } from "./Errors.js"
import { sha256Hex } from "./Sha256.js"

/**
 * A position in one session's history, as a read left it: `row` is the absolute row the terminal's
 * cursor was on (the next output goes there), in the backend's own numbering; `anchor`, when the
 * backend's numbering can shift (tmux trims its history), a digest of the rows just above `row` so
 * the backend can find that place again; `rowDigest`, the digest (`rowDigest` below) of the exact
 * text of row `row` as the read saw it, or null when the backend did not see it: a since read
 * returns that row again only when its text changed, so a read with nothing new returns nothing.
 * Opaque to the tools, which only encode it per session.
 */
export interface CursorPosition {
  readonly row: number
  readonly anchor: string | null
  readonly rowDigest: string | null
}

/** The MAC that authenticates cursors: keyed by the caller, so cursors live as long as its key. */
export interface CursorMac {
  /** The MAC of `payload` under the caller's key (at least 16 bytes: the first 16 go into a cursor). */
  readonly sign: (payload: Uint8Array) => Uint8Array
  /** Whether two byte strings of the same length are equal, in a time that does not tell where they differ. */
  readonly same: (a: Uint8Array, b: Uint8Array) => boolean
}

/** Encodes a session's position as its cursor, and back. */
export interface CursorCodec {
  readonly encode: (sessionId: string, position: CursorPosition) => string
  /** The position a cursor of `sessionId` names; `invalid_request` for any other string. */
  readonly decode: (sessionId: string, cursor: string) => CursorPosition | TermPilotError
}

const VERSION = "2"
const MAX_CURSOR_LENGTH = 256
/** Bytes of the MAC kept in a cursor (128 bits). */
const MAC_BYTES = 16

const digest16 = (text: string): string => sha256Hex(text).slice(0, 16)

/** The digest a backend keeps of the exact text of the cursor's own row (16 hex). */
export const rowDigest = (text: string): string => digest16(text)

const sessionTag = (sessionId: string): string => digest16(sessionId).slice(0, 12)

const notACursor = () =>
  fail(
    "invalid_request",
    "since is not a cursor returned by read_terminal in this TermPilot process (cursors do not survive a " +
      "restart); pass a cursor exactly as returned, or read without since to get a new one."
  )

const HEX16 = /^([0-9a-f]{16})?$/

/** Cursors authenticated by `mac`: the MAC, then the fields, base64url. */
export const cursorCodec = (mac: CursorMac): CursorCodec => {
  const macOf = (payload: Uint8Array): Uint8Array => mac.sign(payload).subarray(0, MAC_BYTES)
  return {
    encode: (sessionId, position) => {
      const fields = [
        VERSION,
        sessionTag(sessionId),
        String(position.row),
        position.anchor ?? "",
        position.rowDigest ?? ""
      ]
      const payload = Buffer.from(fields.join("|"), "utf8")
      return Buffer.concat([macOf(payload), payload]).toString("base64url")
    },
    decode: (sessionId, cursor) => {
      if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
        return notACursor()
      }
      const bytes = Buffer.from(cursor, "base64url")
      // Only the one spelling this process wrote: base64url's spare bits make other spellings decode alike.
      if (bytes.length <= MAC_BYTES || bytes.toString("base64url") !== cursor) return notACursor()
      const payload = bytes.subarray(MAC_BYTES)
      if (!mac.same(bytes.subarray(0, MAC_BYTES), macOf(payload))) return notACursor()
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
      return {
        row: Number(row),
        anchor: anchor === "" ? null : anchor,
        rowDigest: digest === "" ? null : digest
      }
    }
  }
}
