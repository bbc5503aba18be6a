/**
 * AppleScript — the scripts that ask iTerm2 for a single-use API cookie and key, and how their
 * answers read, pure: whether the app runs, the cookie request under TermPilot's advisory name,
 * the error numbers that mean "too old" or "Python API off", and the `<cookie> <key>` reply.
 */
import { ADVISORY_NAME } from "./HandshakeHeaders.js"

/** Escape a string for use inside an AppleScript string literal. */
export const appleScriptString = (s: string): string => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`

const application = (appName: string) => `application ${appleScriptString(appName)}`

/** Prints "yes" or "no": whether `appName` is running (without launching it). */
export const runningProbeScript = (appName: string): string =>
  `if ${application(appName)} is running then\n  return "yes"\nelse\n  return "no"\nend if\n`

/** Prints `<cookie> <key>` for a connection advertised as TermPilot. */
export const cookieRequestScript = (appName: string): string =>
  `tell ${application(appName)} to request cookie and key for app named ${appleScriptString(ADVISORY_NAME)}\n`

/** The error number osascript ends its message with (`… (-2741)`), if any. */
const errorNumber = (stderr: string): number | undefined => {
  const match = / \((-?\d+)\)\s*$/.exec(stderr.trim())
  return match?.[1] === undefined ? undefined : Number(match[1])
}

/** What a failed cookie request definitely means: an iTerm2 too old for it, its Python API off, or neither. */
export const cookieRequestFailure = (stderr: string): "too_old" | "api_disabled" | null => {
  const number = errorNumber(stderr)
  if (number === -2740 || number === -2741) return "too_old"
  if (number === 1 || /Python API is not enabled/i.test(stderr)) return "api_disabled"
  return null
}

/** The cookie and key in a successful request's output; null when it holds no cookie. */
export const parseCookieReply = (
  stdout: string
): { readonly cookie: string; readonly key: string | undefined } | null => {
  const [cookie, key] = stdout.trim().split(/\s+/)
  return cookie === undefined || cookie === "" ? null : { cookie, key }
}
