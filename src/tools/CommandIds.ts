/**
 * CommandIds — list_commands' `command_id` (out, and back in as read_command_output's `command_id`
 * or list_commands' `since`): a backend's CommandRecord key sealed to one session and this process.
 * `cmd_` then base64url of a 16-byte HMAC and the payload (version, key); the HMAC covers the
 * session id too, under this process's key (ProcessMac.ts). An id made up, edited by one character,
 * of another session or of another TermPilot process is an `invalid_request`, never some other key.
 * A backend key of up to about 150 bytes keeps an id within the 256 characters an identifier has.
 */
import type { CursorMac } from "../domain/ReadCursor.js"
import { fail, type TermPilotError } from "../services/Errors.js"
import { processMac } from "./ProcessMac.js"

export const COMMAND_ID_PREFIX = "cmd_"
const VERSION = "1"
/** Bytes of the MAC kept in an id (128 bits). */
const MAC_BYTES = 16
/** Keeps these MACs apart from everything else the process key signs (cursors). */
const DOMAIN = "termpilot/command_id"

/** Seals a session's command keys into command ids, and back. */
export interface CommandIdCodec {
  readonly encode: (sessionId: string, key: string) => string
  /** The key `commandId` seals for `sessionId`; `invalid_request` naming `field` for any other string. */
  readonly decode: (sessionId: string, commandId: string, field: string) => string | TermPilotError
}

const notACommandId = (sessionId: string, field: string) =>
  fail(
    "invalid_request",
    `${field} is not a command_id that list_commands returned for session '${sessionId}' in this TermPilot ` +
      "process (command ids are per session and do not survive a restart); call list_commands for this " +
      "session and pass a command_id exactly as returned."
  )

/** Command ids authenticated by `mac` (injectable: a test's other key stands for another process). */
export const commandIdCodec = (mac: CursorMac): CommandIdCodec => {
  const macOf = (sessionId: string, payload: Uint8Array): Uint8Array => {
    const bound = Buffer.from(`${DOMAIN}\0${sessionId.length}:${sessionId}\0`, "utf8")
    return mac.sign(Buffer.concat([bound, payload])).subarray(0, MAC_BYTES)
  }
  return {
    encode: (sessionId, key) => {
      const payload = Buffer.from(`${VERSION}|${key}`, "utf8")
      return COMMAND_ID_PREFIX + Buffer.concat([macOf(sessionId, payload), payload]).toString("base64url")
    },
    decode: (sessionId, commandId, field) => {
      const body = commandId.startsWith(COMMAND_ID_PREFIX) ? commandId.slice(COMMAND_ID_PREFIX.length) : ""
      if (!/^[A-Za-z0-9_-]+$/.test(body)) return notACommandId(sessionId, field)
      const bytes = Buffer.from(body, "base64url")
      // Only the one spelling this process wrote: base64url's spare bits make other spellings decode alike.
      if (bytes.length <= MAC_BYTES || bytes.toString("base64url") !== body)
        return notACommandId(sessionId, field)
      const payload = bytes.subarray(MAC_BYTES)
      if (!mac.same(bytes.subarray(0, MAC_BYTES), macOf(sessionId, payload)))
        return notACommandId(sessionId, field)
      // Authentic from here on: the check below guards against a format change, not against forgery.
      const text = payload.toString("utf8")
      const key = text.slice(VERSION.length + 1)
      return text.startsWith(`${VERSION}|`) && key !== "" ? key : notACommandId(sessionId, field)
    }
  }
}

const codec = commandIdCodec(processMac)

/** The command_id of the backend's `key` in `sessionId`. */
export const encodeCommandId: CommandIdCodec["encode"] = codec.encode

/** The backend key a command_id of `sessionId` seals; `invalid_request` for any other string. */
export const decodeCommandId: CommandIdCodec["decode"] = codec.decode
