/**
 * Iterm2Id — the iTerm2 session-id form, pure: a session's GUID, exactly. iTerm2 itself resolves
 * the keywords "active" (the focused session) and "all" (every session), so anything that is not a
 * GUID must never reach it as a target; `ITERM_SESSION_ID`'s `w0t1p0:GUID` is told apart only to
 * say where the GUID is in it, never to guess the id on the caller's behalf.
 */
import { fail, sessionNotFound, type TermPilotError } from "../Errors.js"

/** iTerm2 session ids are session GUIDs. */
const SESSION_GUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/

/** `w<window>t<tab>p<pane>` then `:` (or `.`) and the rest, as ITERM_SESSION_ID spells it. */
const TERMID = /^w\d+t\d+p\d+[:.](.+)$/

/**
 * Why `sessionId` may not reach iTerm2 (it is not a session GUID: not found, before any request);
 * null when it is one.
 */
export const iterm2IdRefusal = (sessionId: string): TermPilotError | null => {
  if (SESSION_GUID.test(sessionId)) return null
  if (!TERMID.test(sessionId)) return sessionNotFound(sessionId)
  return fail(
    "session_not_found",
    `Session '${sessionId}' was not found: that is an ITERM_SESSION_ID; the session_id is the GUID after the colon, as list_sessions reports it.`
  )
}
