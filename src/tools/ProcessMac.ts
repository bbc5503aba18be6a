/**
 * ProcessMac — this TermPilot process's one secret: a key drawn at random when this module is
 * loaded (once per process), and the HMAC-SHA256 under it that authenticates what the tools hand
 * out and take back (read_terminal's cursors, list_commands' command ids). Nothing signed with it
 * outlives the process; each user prefixes its own domain, so one kind is never taken for another.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import type { CursorMac } from "../domain/ReadCursor.js"

/** This process's key: what it signs is refused by every other process (another key). */
const KEY = randomBytes(32)

/** HMAC-SHA256 under this process's key, compared in constant time. */
export const processMac: CursorMac = {
  sign: (payload) => createHmac("sha256", KEY).update(payload).digest(),
  same: (a, b) => a.length === b.length && timingSafeEqual(a, b)
}
