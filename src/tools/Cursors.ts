/**
 * Cursors — the read_terminal cursors of this TermPilot process (`cursor` out, `since` in): the
 * format of src/domain/ReadCursor.ts, authenticated with an HMAC-SHA256 under a key drawn at random
 * when this module is loaded, that is once per process. A cursor of an earlier run (another key)
 * is refused like any made-up string. Only the tools encode and decode cursors: the layers see
 * plain CursorPositions.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { type CursorCodec, cursorCodec } from "../domain/ReadCursor.js"

/** This process's key: cursors do not outlive it. */
const KEY = randomBytes(32)

const codec: CursorCodec = cursorCodec({
  sign: (payload) => createHmac("sha256", KEY).update(payload).digest(),
  same: (a, b) => a.length === b.length && timingSafeEqual(a, b)
})

/** The cursor string for `position` in `sessionId`. */
export const encodeCursor: CursorCodec["encode"] = codec.encode

/** The position a cursor of `sessionId` names; `invalid_request` for any other string. */
export const decodeCursor: CursorCodec["decode"] = codec.decode
