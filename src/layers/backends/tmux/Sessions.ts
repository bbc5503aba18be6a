/**
 * Sessions — the sessions of one tmux server, least recently active first, from one `tmux -N
 * list-sessions` run (over ssh for another host's server), and why that failed: no server at a
 * local socket; for a host, ssh not answering or failing, no tmux there, or no server there (then
 * the failure carries NO_SERVER: the host contributes nothing and no error).
 */
import { type ExecFileException, execFile } from "node:child_process"
import { Effect } from "effect"
import { fail, type TermPilotError } from "../../../services/Errors.js"
import { childEnv } from "./Connection.js"
import { SSH_FAILED, type TmuxTransport } from "./Transport.js"

/** The cause of the failure of a host reached over ssh whose tmux has no server: no sessions, no error to report. */
export const NO_SERVER = { noServer: true } as const

/** Whether `error` says only that a remote host's tmux has no server (the host contributes nothing). */
export const isNoServer = (error: TermPilotError): boolean => error.cause === NO_SERVER

/** Session ids of the server, least recently active first (one `tmux -N` run, over ssh for a host). */
export const sessionsByActivity = (
  transport: TmuxTransport,
  timeoutMs: number
): Effect.Effect<ReadonlyArray<string>, TermPilotError> =>
  Effect.callback((resume) => {
    const { file, args } = transport.command([
      "-N",
      "list-sessions",
      "-F",
      "#{session_activity} #{session_id}"
    ])
    const child = execFile(
      file,
      [...args],
      { timeout: timeoutMs, env: childEnv(), encoding: "utf8", maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null) {
          resume(Effect.fail(listFailure(transport, error, stderr)))
          return
        }
        const rows = stdout
          .split("\n")
          .map((line) => line.split(" "))
          .filter((r): r is [string, string] => r.length === 2 && /^\$\d+$/.test(r[1]!))
        rows.sort((a, b) => Number(a[0]) - Number(b[0]))
        resume(Effect.succeed(rows.map((r) => r[1])))
      }
    )
    // Over ssh stdin is not needed; closing it keeps ssh from waiting on TermPilot's.
    child.stdin?.end()
    return Effect.sync(() => {
      child.kill("SIGKILL")
    })
  })

/** Why listing a server's sessions failed: for a host, whether ssh could not connect or tmux has no server. */
const listFailure = (transport: TmuxTransport, error: ExecFileException, stderr: string): TermPilotError => {
  const detail = stderr.trim().split("\n").slice(-2).join(" ").slice(0, 400)
  if (transport.host === null)
    return fail("tmux_unavailable", `No tmux server answers at ${transport.where}.`, error)
  if (error.killed === true || (error.signal !== null && error.signal !== undefined))
    return fail("tmux_unavailable", `The host ${transport.host.spec} did not answer over ssh in time.`)
  if (error.code === SSH_FAILED)
    return fail("tmux_unavailable", `ssh to ${transport.host.spec} failed: ${detail || "exit 255"}.`)
  if (error.code === 127)
    return fail("tmux_unavailable", `The host ${transport.host.spec} has no tmux on its PATH (${detail}).`)
  if (/no server running|error connecting|No such file or directory/.test(detail))
    return fail("tmux_unavailable", `The host ${transport.host.spec} runs no tmux server.`, NO_SERVER)
  return fail("tmux_unavailable", `tmux on ${transport.host.spec} failed: ${detail || `exit ${error.code}`}.`)
}
