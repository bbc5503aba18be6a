/**
 * ReadCursor — the opaque `cursor` read_terminal returns and takes back as `since`: a backend's
 * CursorPosition bound to the one session it was read from. Another session's cursor, or a string
 * that is not a cursor, is an `invalid_request`; nothing here touches a terminal.
 */
import { createHash } from "node:crypto"
import { fail, type TermPilotError } from "../services/Errors.js"
import type { CursorPosition } from "../services/Terminal.js"

const VERSION = "1"
const MAX_CURSOR_LENGTH = 256

const sessionTag = (sessionId: string): string =>
  createHash("sha256").update(sessionId, "utf8").digest("hex").slice(0, 12)

/** The cursor string for `position` in `sessionId`. */
export const encodeCursor = (sessionId: string, position: CursorPosition): string =>
  Buffer.from(
    [VERSION, sessionTag(sessionId), String(position.row), position.anchor ?? ""].join("|"),
    "utf8"
  ).toString("base64url")

const notACursor = () =>
  fail(
    "invalid_request",
    "since is not a cursor returned by read_terminal; pass a cursor exactly as returned."
  )

/** The position a cursor of `sessionId` names; `invalid_request` for any other string. */
export const decodeCursor = (sessionId: string, cursor: string): CursorPosition | TermPilotError => {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    return notACursor()
  }
  const fields = Buffer.from(cursor, "base64url").toString("utf8").split("|")
  const [version, tag, row, anchor] = fields
  if (fields.length !== 4 || version !== VERSION || tag === undefined || row === undefined)
    return notACursor()
  if (!/^(0|[1-9]\d{0,15})$/.test(row) || !/^[0-9a-f]{0,64}$/.test(anchor ?? "")) return notACursor()
  if (tag !== sessionTag(sessionId)) {
    return fail(
      "invalid_request",
      `since is a cursor of another session, not of '${sessionId}'; cursors are per session: read this session without since to get one.`
    )
  }
  return { row: Number(row), anchor: anchor === "" || anchor === undefined ? null : anchor }
}
