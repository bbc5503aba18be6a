/**
 * Cursors — the read_terminal cursors of this TermPilot process (`cursor` out, `since` in): the
 * format of src/domain/ReadCursor.ts, authenticated with this process's HMAC (ProcessMac.ts, a key
 * drawn at random once per process). A cursor of an earlier run (another key) is refused like any
 * made-up string. Only the tools encode and decode cursors: the layers see plain CursorPositions.
 */
import { type CursorCodec, cursorCodec } from "../domain/ReadCursor.js"
import { processMac } from "./ProcessMac.js"

const codec: CursorCodec = cursorCodec(processMac)

/** The cursor string for `position` in `sessionId`. */
export const encodeCursor: CursorCodec["encode"] = codec.encode

/** The position a cursor of `sessionId` names; `invalid_request` for any other string. */
export const decodeCursor: CursorCodec["decode"] = codec.decode
