/**
 * Builders for what interrupt_command answers (InterruptResult): the command's result as it stands
 * with `interrupt_sent`, and a message saying what was sent and what the shell then reported. No
 * effects here.
 */
import type { CommandResult, InterruptResult } from "../../services/CommandRunner.js"

/** The longest interrupt_command may wait for the command to end. */
export const MAX_INTERRUPT_WAIT_SECONDS = 60

/** 128 + SIGINT: what bash and zsh report for a command stopped by the interrupt. */
const SIGINT_STATUS = 130

const sentNote = (r: CommandResult) =>
  `One interrupt (ETX, as Ctrl-C would send) was sent to session '${r.session_id}'`

const joined = (first: string, rest: string | null) => (rest === null ? first : `${first} ${rest}`)

/** The command had already finished (by TermPilot's or the terminal's account): nothing sent. */
export const nothingSent = (final: CommandResult): InterruptResult => ({
  ...final,
  interrupt_sent: false,
  message: joined("The command had already finished; no interrupt was sent.", final.message)
})

/** The terminal says the command is no longer running, but its final result is not recorded yet. */
export const endedUnrecorded = (current: CommandResult): InterruptResult => ({
  ...current,
  interrupt_sent: false,
  message: `The terminal reports that the command is no longer running, so no interrupt was sent; its final result is not recorded yet. Use get_command_result with request_id ${current.request_id} to get it.`
})

/** The interrupt was sent and the command then ended: its final result, with what the shell said. */
export const afterInterrupt = (final: CommandResult): InterruptResult => {
  const exit = final.exit_code
  const said =
    final.status !== "completed" || exit === null
      ? joined(`${sentNote(final)}; then:`, final.message ?? `the result is '${final.status}'.`)
      : exit === SIGINT_STATUS
        ? `${sentNote(final)}; the shell then reported exit status ${exit} (128 + SIGINT): the command was interrupted.`
        : `${sentNote(final)}; the shell then reported exit status ${exit}: the command ended on its own or handled the interrupt.`
  return { ...final, interrupt_sent: true, message: said }
}

/** The interrupt was sent but the command had not ended when the wait stopped. */
export const stillRunning = (
  current: CommandResult,
  waitSeconds: number,
  cancelled: boolean
): InterruptResult => {
  const why = cancelled
    ? "the client cancelled the wait before the command stopped"
    : `the program did not stop within ${waitSeconds} s (it ignores or handles the interrupt, or is still stopping)`
  return {
    ...current,
    status: "still_running",
    interrupt_sent: true,
    message: `${sentNote(current)}, but ${why}. The output so far is included. The user may ask to interrupt it again; TermPilot never sends anything stronger by itself. Use get_command_result with request_id ${current.request_id} to follow it.`
  }
}
