/**
 * The fake iTerm2's HTTP handshake rules, as iTerm2's own iTermHTTPConnection /
 * iTermWebSocketConnection / API server apply them (docs/reference/iterm2-protocol.md §1.2–1.5):
 * request-head parsing with iTerm2's limits, the header checks (400), the python library gate
 * (406) and cookie authorisation (401). Failures are a bare status line.
 */

export interface RequestHead {
  readonly method: string
  readonly path: string
  readonly protocol: string
  /** Lower-cased names, trimmed values; a duplicate overwrites the earlier one. */
  readonly headers: Readonly<Record<string, string>>
}

export type HeadParse =
  | { readonly _tag: "Incomplete" }
  | { readonly _tag: "Bad" }
  | { readonly _tag: "Head"; readonly head: RequestHead; readonly rest: Buffer }

export const MAX_HEADERS = 100
export const MAX_LINE_BYTES = 4096
export const REQUEST_TIMEOUT_MS = 30_000

export const statusLines = {
  400: "HTTP/1.1 400 Bad Request\r\n\r\n",
  401: "HTTP/1.1 401 Unauthorized\r\n\r\n",
  406: "HTTP/1.1 406 Unacceptable (upgrade Python library)\r\n\r\n"
} as const
export type RejectStatus = keyof typeof statusLines

/** Parse a request head from the bytes received so far. */
export const parseRequestHead = (buffer: Buffer): HeadParse => {
  const end = buffer.indexOf("\r\n\r\n")
  if (end < 0) {
    const lines = buffer.toString("latin1").split("\r\n")
    const last = lines[lines.length - 1] ?? ""
    if (last.length > MAX_LINE_BYTES || lines.length > MAX_HEADERS + 2) return { _tag: "Bad" }
    return { _tag: "Incomplete" }
  }
  const lines = buffer.subarray(0, end).toString("latin1").split("\r\n")
  if (lines.some((line) => line.length > MAX_LINE_BYTES) || lines.length - 1 > MAX_HEADERS)
    return { _tag: "Bad" }
  const parts = (lines[0] ?? "").split(" ")
  if (parts.length !== 3) return { _tag: "Bad" }
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":")
    if (colon <= 0) return { _tag: "Bad" }
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const [method, path, protocol] = parts as [string, string, string]
  return { _tag: "Head", head: { method, path, protocol, headers }, rest: buffer.subarray(end + 4) }
}

const hostAllowed = (host: string): boolean => {
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : (host.split(":")[0] ?? "")
  return name === "localhost" || name === "127.0.0.1" || name === "[::1]"
}

const originAllowed = (origin: string): boolean => {
  try {
    return new URL(origin).hostname === "localhost"
  } catch {
    return false
  }
}

/** The 400 checks: `undefined` when the request is a well-formed iTerm2 API upgrade. */
export const malformed = (head: RequestHead): string | undefined => {
  const h = head.headers
  if (head.method !== "GET" || head.protocol !== "HTTP/1.1") return "request line"
  if (head.path !== "/") return "path"
  if (h["content-length"] !== undefined) return "content-length"
  if ((h.upgrade ?? "").toLowerCase() !== "websocket") return "upgrade"
  if ((h.connection ?? "").toLowerCase() !== "upgrade") return "connection"
  if (h["sec-websocket-protocol"] !== "api.iterm2.com") return "sec-websocket-protocol"
  if (!h["sec-websocket-key"]) return "sec-websocket-key"
  const version = h["sec-websocket-version"] ?? ""
  if (!/^\d+$/.test(version) || Number(version) < 13) return "sec-websocket-version"
  if (!h.host || !hostAllowed(h.host)) return "host"
  if (!h.origin || !originAllowed(h.origin)) return "origin"
  const library = (h["x-iterm2-library-version"] ?? "").split(" ")
  if (library.length !== 2 || library[0] === "" || !/^\d+(\.\d+)*$/.test(library[1] ?? "")) {
    return "x-iterm2-library-version"
  }
  return undefined
}

/** The python client gate: `python` below 0.24 → 406. Other languages are not gated. */
export const libraryTooOld = (head: RequestHead): boolean => {
  const [lang, version] = (head.headers["x-iterm2-library-version"] ?? "").split(" ")
  return lang === "python" && Number.parseFloat(version ?? "0") < 0.24
}

export interface AuthPolicy {
  readonly allowAll: boolean
  /** Single-use: a valid cookie is consumed by the check. */
  readonly consumeCookie: (cookie: string) => boolean
}

/**
 * The full verdict in iTerm2's order: 400, 406, then authorisation. Without a valid cookie and
 * without allow-all, iTerm2 would show a dialog unless `x-iterm2-disable-auth-ui` is present; the
 * fake has no dialog, so it answers 401 either way.
 */
export const verdict = (head: RequestHead, auth: AuthPolicy): RejectStatus | "accept" => {
  if (malformed(head) !== undefined) return 400
  if (libraryTooOld(head)) return 406
  const cookie = head.headers["x-iterm2-cookie"]
  if (cookie !== undefined && auth.consumeCookie(cookie)) return "accept"
  if (auth.allowAll) return "accept"
  return 401
}
