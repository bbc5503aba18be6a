/**
 * Where iTerm2 (≥ 3.4) listens for API connections: a unix socket under the user's Application
 * Support folder, named after the defaults suite (`IT2_SUITE`, else "iTerm2").
 */
import { join } from "node:path"

/** `<home>/Library/Application Support/<suite or "iTerm2">/private/socket`. */
export const iterm2SocketPath = (home: string, suite?: string | undefined): string =>
  join(
    home,
    "Library",
    "Application Support",
    suite !== undefined && suite.trim() !== "" ? suite : "iTerm2",
    "private",
    "socket"
  )
