/**
 * get_command_result — the current result of an earlier run_command, optionally waiting a
 * bounded time for it to finish. Reads only; never sends anything to a terminal.
 */
import { Effect, Schema } from "effect"
import { CommandRunner } from "../services/CommandRunner.js"
import { OBSERVATION_NOTE } from "./Descriptions.js"
import { identifierField, nonNegativeNumberField } from "./Fields.js"
import { ObservedCommandResult, observeResult } from "./Observation.js"
import { isFailedResult, MAX_TIMEOUT_SECONDS, summarizeResult } from "./RunCommand.js"
import { defineTool, readerAnnotations } from "./Tool.js"

export const GetCommandResultInput = Schema.Struct({
  request_id: identifierField("request_id", "The request_id returned by run_command."),
  wait_seconds: nonNegativeNumberField("wait_seconds", {
    min: 0,
    max: MAX_TIMEOUT_SECONDS,
    default: 0,
    description: "How long to wait for the command to finish before answering; 0 answers at once."
  })
})

export const getCommandResult = defineTool({
  name: "get_command_result",
  title: "Get a command's result",
  description:
    "Return the current result of an earlier run_command by its request_id: status, exit_code and bounded " +
    "output, waiting up to wait_seconds for it to finish. A command still running comes with its output so " +
    "far (the newest lines, truncated when bounded). Use short waits and call again while the status is " +
    `'submitted' or 'timed_out'. This never sends anything to a terminal. ${OBSERVATION_NOTE}`,
  annotations: readerAnnotations,
  input: GetCommandResultInput,
  output: ObservedCommandResult,
  audit: "command",
  deadline: "self",
  cancellation: "self",
  handler: Effect.fn("get_command_result")(function* (input) {
    const runner = yield* CommandRunner
    return yield* observeResult(yield* runner.result(input.request_id, input.wait_seconds))
  }),
  summary: summarizeResult,
  isErrorOutput: isFailedResult
})
