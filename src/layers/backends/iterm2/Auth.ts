/**
 * Auth — where the cookie/key for one handshake comes from: the single-use ITERM2_COOKIE /
 * ITERM2_KEY handed over at start, else AppleScript through `osascript` ("request cookie and key
 * for app named …"), else nothing (works only when iTerm2 allows all apps to connect).
 */
import { spawn } from "node:child_process"
import { Effect } from "effect"
import {
  cookieRequestFailure,
  cookieRequestScript,
  parseCookieReply,
  runningProbeScript
} from "../../../domain/iterm2/AppleScript.js"
import { Iterm2Error } from "./ConnectionService.js"

export interface Credentials {
  readonly cookie: string
  readonly key: string | undefined
  readonly source: "env" | "applescript"
}

/** Result of asking AppleScript: credentials, or why none could be had (the connect may still work). */
export type AppleScriptOutcome =
  | { readonly _tag: "Credentials"; readonly credentials: Credentials }
  | { readonly _tag: "Unavailable"; readonly why: string }

export const enablePythonApiRemedy =
  "Make sure iTerm2 is running and its Python API is enabled: iTerm2 → Settings → General → Magic → " +
  "Enable Python API."

interface OsascriptResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Run `osascript -` with `script` on stdin; `undefined` when the executable does not exist. */
const runOsascript = (osascript: string, script: string, timeoutMs: number) =>
  Effect.callback<OsascriptResult | undefined, Iterm2Error>((resume) => {
    const child = spawn(osascript, ["-"], { stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    let done = false
    const finish = (effect: Effect.Effect<OsascriptResult | undefined, Iterm2Error>) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resume(effect)
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      finish(
        Effect.fail(
          new Iterm2Error({
            reason: "timeout",
            message: `osascript did not answer within ${timeoutMs} ms (is a macOS permission dialog waiting?)`
          })
        )
      )
    }, timeoutMs)
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d
    })
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d
    })
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "EACCES") finish(Effect.succeed(undefined))
      else
        finish(
          Effect.fail(
            new Iterm2Error({
              reason: "auth_denied",
              message: `osascript failed: ${error.message}`,
              cause: error
            })
          )
        )
    })
    child.on("close", (code) => finish(Effect.succeed({ code, stdout, stderr })))
    child.stdin.on("error", () => {})
    child.stdin.end(script)
    return Effect.sync(() => {
      clearTimeout(timer)
      if (!done) child.kill("SIGKILL")
    })
  })

/**
 * Ask iTerm2 for a fresh single-use cookie and key via AppleScript. Fails (typed) only for the
 * definite cases — iTerm2 not running, API disabled, iTerm2 too old, timeout; anything else
 * (osascript missing, Automation permission denied, …) yields `Unavailable` so the caller can
 * still try without a cookie.
 */
export const requestCookieViaAppleScript = (options: {
  readonly osascript: string
  readonly appName: string
  readonly timeoutMs: number
}): Effect.Effect<AppleScriptOutcome, Iterm2Error> =>
  Effect.gen(function* () {
    const probe = yield* runOsascript(
      options.osascript,
      runningProbeScript(options.appName),
      options.timeoutMs
    )
    if (probe === undefined) return { _tag: "Unavailable", why: "osascript is not available" } as const
    if (probe.code === 0 && probe.stdout.trim() === "no") {
      return yield* new Iterm2Error({
        reason: "not_running",
        message: `iTerm2 is not running (AppleScript says ${options.appName} is not running). Start iTerm2.`
      })
    }
    const reply = yield* runOsascript(
      options.osascript,
      cookieRequestScript(options.appName),
      options.timeoutMs
    )
    if (reply === undefined) return { _tag: "Unavailable", why: "osascript is not available" } as const
    if (reply.code !== 0) {
      const stderr = reply.stderr.trim()
      const failure = cookieRequestFailure(stderr)
      if (failure === "too_old") {
        return yield* new Iterm2Error({
          reason: "protocol",
          message:
            "This iTerm2 is too old for its scripting API cookie request; upgrade iTerm2 (3.4 or later)."
        })
      }
      if (failure === "api_disabled") {
        return yield* new Iterm2Error({
          reason: "api_disabled",
          message: `iTerm2's Python API is not enabled. ${enablePythonApiRemedy}`
        })
      }
      return {
        _tag: "Unavailable",
        why: `the AppleScript cookie request failed: ${stderr || "no message"}`
      } as const
    }
    const cookie = parseCookieReply(reply.stdout)
    if (cookie === null) {
      return { _tag: "Unavailable", why: "the AppleScript cookie request returned nothing" } as const
    }
    return { _tag: "Credentials", credentials: { ...cookie, source: "applescript" } } as const
  })
