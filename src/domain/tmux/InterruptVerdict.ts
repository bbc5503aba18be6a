/**
 * InterruptVerdict — whether one tmux pane may get the ETX that interrupts the command typed at
 * one prompt, pure: tmux's pane flags first (a dead pane is gone; a mode, synchronize-panes or
 * input off would send the key elsewhere), then whether the mark stream can be trusted (held at a
 * token check, or not streamed by the client that asked), then what the stream says of that prompt.
 * The alternate screen does not block: a full-screen program the command started may be interrupted.
 */
import type { ErrorCode } from "../Errors.js"
import type { InterruptVerdict } from "../InterruptVerdict.js"
import type { PaneFlags } from "./PaneFormat.js"
import type { StreamFacts } from "./PaneStream.js"

const refuse = (code: ErrorCode, reason: string): InterruptVerdict => ({ _tag: "Refuse", code, reason })

/**
 * Why a key sent to this pane would not reach its program alone (dead, a mode, synchronize-panes,
 * input off), or undefined; shared by the interrupt and send_keys.
 */
export const keyTargetRefusal = (
  flags: PaneFlags
): { readonly code: ErrorCode; readonly reason: string } | undefined => {
  if (flags.dead) return { code: "session_not_found", reason: "its process has exited (the pane is dead)" }
  if (flags.mode !== null)
    return { code: "session_not_ready", reason: `it is in ${flags.mode}, which would take the key` }
  if (flags.synchronized)
    return {
      code: "session_not_ready",
      reason: "its window has synchronize-panes on, so the key would reach every pane of it"
    }
  if (flags.inputOff) return { code: "session_not_ready", reason: "its input is off" }
  return undefined
}

/**
 * `trusted`: the flag reply came over the open control client that streams the pane, so every byte
 * the pane wrote before it is in `stream`.
 */
export const interruptVerdict = (
  flags: PaneFlags,
  stream: StreamFacts,
  promptId: string,
  trusted: boolean
): InterruptVerdict => {
  const blocked = keyTargetRefusal(flags)
  if (blocked !== undefined) return refuse(blocked.code, blocked.reason)
  if (!trusted || stream.held || stream.lastMark === null)
    return refuse(
      "command_not_running",
      "TermPilot cannot verify from the pane's marks what it is running now"
    )
  // A newer prompt (or none of ours) is the current one: our command is over.
  if (stream.promptId !== promptId) return { _tag: "Answer", check: "ended" }
  switch (stream.lastMark) {
    case "C":
      return { _tag: "Send" }
    case "D":
      return { _tag: "Answer", check: "ended" }
    default:
      // B, or A of the same prompt redrawn (a resize): the line was not run yet.
      return { _tag: "Answer", check: "not_started" }
  }
}
