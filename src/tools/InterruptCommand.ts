/**
 * interrupt_command — stop exactly the command an earlier run_command started: one Ctrl-C (ETX)
 * to that one session, only while it verifiably still runs that command; never anything else.
 */
import { Effect, Schema } from "effect"
import { CommandRunner, type InterruptResult } from "../services/CommandRunner.js"
import { OBSERVATION_NOTE } from "./Descriptions.js"
import { identifierField, nonNegativeNumberField } from "./Fields.js"
import { ObservedInterruptResult, observeResult } from "./Observation.js"
import { describeOutcome, isFailedResult, withNotice } from "./RunCommand.js"
import { defineTool } from "./Tool.js"

export const MAX_INTERRUPT_WAIT_SECONDS = 60

export const InterruptCommandInput = Schema.Struct({
  request_id: identifierField("request_id", "The request_id run_command returned for the command to stop."),
  wait_seconds: nonNegativeNumberField("wait_seconds", {
    min: 0,
    max: MAX_INTERRUPT_WAIT_SECONDS,
    default: 5,
    description:
      "How long to wait for the command to end after the interrupt; if it has not ended by then the " +
      "status is 'still_running'."
  })
})

const interruptPart = (result: InterruptResult): string => {
  if (result.interrupt_sent)
    return result.status === "still_running"
      ? "Interrupt (one Ctrl-C) sent, but the command has not ended yet (it may ignore Ctrl-C; nothing more is sent by itself)."
      : "Interrupt (one Ctrl-C) sent."
  return "No interrupt sent."
}

export const summarizeInterrupt = (result: InterruptResult): string =>
  withNotice(result, `${interruptPart(result)} ${describeOutcome(result)}`)

export const interruptCommand = defineTool({
  name: "interrupt_command",
  title: "Interrupt a command TermPilot started",
  description:
    "Stop a command that an earlier run_command started, by its request_id: when that exact command is still " +
    "running in its session (checked immediately before sending), send one Ctrl-C (ETX) to that session only, " +
    "then wait up to wait_seconds and report the command's result (an interrupted shell command usually " +
    "completes with exit code 130) or status 'still_running' if it did not end. It never escalates to other " +
    "signals and never retries by itself; it only stops a command TermPilot itself started, never anything " +
    "else in the terminal. A command that already finished gets nothing: its final result comes back with " +
    "interrupt_sent false. Use it only when the user asks to stop the command, or when a timeout made the " +
    `command useless and the user agrees. ${OBSERVATION_NOTE}`,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input: InterruptCommandInput,
  output: ObservedInterruptResult,
  audit: "command",
  deadline: "self",
  cancellation: "self",
  handler: Effect.fn("interrupt_command")(function* (input) {
    const runner = yield* CommandRunner
    return yield* observeResult(yield* runner.interrupt(input.request_id, input.wait_seconds))
  }),
  summary: summarizeInterrupt,
  isErrorOutput: isFailedResult
})
