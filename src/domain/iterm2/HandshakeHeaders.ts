/**
 * HandshakeHeaders — what iTerm2 checks in the WebSocket handshake of its API, pure: the
 * subprotocol, the Origin, the library version (`node <major>.<minor>` of TermPilot's own), the
 * advisory name it shows the person, the single-use cookie and key when there are some; and the
 * protocol version it answers with.
 */

export const SUBPROTOCOL = "api.iterm2.com"
export const ORIGIN = "ws://localhost/"
/** The name iTerm2 shows when it asks the person to allow the connection. */
export const ADVISORY_NAME = "TermPilot"

/** `<major>.<minor>` of a package version, for `x-iterm2-library-version: node <v>`; "0.0" when malformed. */
export const libraryVersionOf = (packageVersion: string): string => {
  const match = /^(\d+)\.(\d+)/.exec(packageVersion)
  return match ? `${match[1]}.${match[2]}` : "0.0"
}

/** From X-iTerm2-Protocol-Version; [0, 0] when missing or malformed (as Python does). */
export const parseProtocolVersion = (header: string | string[] | undefined): readonly [number, number] => {
  const value = Array.isArray(header) ? header[0] : header
  const match = /^\s*(\d+)\.(\d+)\s*$/.exec(value ?? "")
  return match ? [Number(match[1]), Number(match[2])] : [0, 0]
}

export const handshakeHeaders = (
  libraryVersion: string,
  credentials: { readonly cookie: string; readonly key: string | undefined } | undefined
): Record<string, string> => ({
  "x-iterm2-library-version": `node ${libraryVersion}`,
  "x-iterm2-disable-auth-ui": "true",
  "x-iterm2-advisory-name": ADVISORY_NAME,
  ...(credentials === undefined ? {} : { "x-iterm2-cookie": credentials.cookie }),
  ...(credentials?.key === undefined ? {} : { "x-iterm2-key": credentials.key })
})
