/**
 * list_commands — the commands one exact session ran that its backend can prove from trusted
 * shell-integration marks (never guessed from the screen), newest last: each with its sealed
 * `command_id` (for read_command_output), command line, exit code, directory, times, whether
 * TermPilot or the person ran it, and whether its output can be read. Reads only.
 */
import { Effect, Schema } from "effect"
import { TermPilotError } from "../domain/Errors.js"
import { UNTRUSTED_TERMINAL_NOTICE } from "../domain/Hygiene.js"
import { CommandRunner } from "../services/CommandRunner.js"
import { type CommandRecord, Terminal } from "../services/Terminal.js"
import { currentToolSettings } from "../services/ToolSettings.js"
import { decodeCommandId, encodeCommandId } from "./CommandIds.js"
import { OBSERVATION_NOTE } from "./Descriptions.js"
import { Integer, identifierField, integerField } from "./Fields.js"
import { observeText } from "./Observation.js"
import { defineTool, readerAnnotations } from "./Tool.js"

export const MAX_LIST_COMMANDS = 200
export const DEFAULT_LIST_COMMANDS = 20

/** A listed command's state, as its backend's marks show it. */
export const ListedCommandStatus = Schema.Literals(["running", "finished", "unknown"])

/** Who typed a listed command: a run_command of this TermPilot process, or anyone else. */
export const RanBy = Schema.Literals(["termpilot", "person"])

export const ListCommandsInput = Schema.Struct({
  session_id: identifierField("session_id", "Exact session_id from list_sessions or get_current_session."),
  limit: integerField("limit", {
    min: 1,
    max: MAX_LIST_COMMANDS,
    default: DEFAULT_LIST_COMMANDS,
    description: "Most commands to return; the newest are kept."
  }),
  since: Schema.optionalKey(
    identifierField(
      "since",
      "A command_id an earlier list_commands returned for this session: only commands after it come back."
    )
  )
})

const NullableIso = Schema.NullOr(Schema.String).annotate({
  description: "ISO-8601 UTC time, or null when the terminal did not report it."
})

export const ListedCommand = Schema.Struct({
  command_id: Schema.String.annotate({
    description: "Opaque id of this command in this session: pass it exactly to read_command_output."
  }),
  command: Schema.NullOr(Schema.String),
  exit_code: Schema.NullOr(Integer),
  cwd: Schema.NullOr(Schema.String),
  started_at: NullableIso,
  finished_at: NullableIso,
  status: ListedCommandStatus,
  ran_by: RanBy,
  request_id: Schema.NullOr(Schema.String).annotate({
    description: "The run_command request_id when ran_by is 'termpilot'; null otherwise."
  }),
  output_line_count: Schema.NullOr(Integer),
  output_available: Schema.Boolean,
  output_unavailable_reason: Schema.NullOr(Schema.String)
})
export type ListedCommand = typeof ListedCommand.Type

export const ListCommandsOutput = Schema.Struct({
  session_id: Schema.String,
  commands: Schema.Array(ListedCommand).annotate({
    description: "Oldest first: the newest command is last."
  }),
  redactions: Integer.annotate({
    description:
      "How many secrets in the command lines and directories were replaced by [REDACTED:kind] markers."
  })
})

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

/** One record as the model sees it: terminal text cleaned and redacted, the key sealed, ran_by found. */
const listed = (
  sessionId: string,
  record: CommandRecord,
  redact: boolean,
  requestAt: CommandRunner["Service"]["requestAt"]
) =>
  Effect.gen(function* () {
    const requestId = record.promptId === null ? null : yield* requestAt(sessionId, record.promptId)
    const command = record.command === null ? null : observeText(record.command, redact)
    const cwd = record.cwd === null ? null : observeText(record.cwd, redact)
    const shown: ListedCommand = {
      command_id: encodeCommandId(sessionId, record.key),
      command: command?.text ?? null,
      exit_code: record.exitCode,
      cwd: cwd?.text ?? null,
      started_at: iso(record.startedAt),
      finished_at: iso(record.finishedAt),
      status: record.status,
      ran_by: requestId === null ? "person" : "termpilot",
      request_id: requestId,
      output_line_count: record.outputLineCount,
      output_available: record.outputUnavailable === null,
      output_unavailable_reason: record.outputUnavailable
    }
    return { shown, redactions: (command?.redactions ?? 0) + (cwd?.redactions ?? 0) }
  })

export const listCommands = defineTool({
  name: "list_commands",
  title: "List a session's commands",
  description:
    "List the commands one exact session ran (newest last, at most limit), as its shell integration proved " +
    "them: command line, exit_code, cwd, started_at/finished_at, status, ran_by ('termpilot' with the " +
    "run_command request_id, or 'person') and whether the output can be read. Pass a command_id to " +
    "read_command_output for exactly that command's output; pass the last command_id as since to get only " +
    `newer commands. This never sends anything to a terminal. ${OBSERVATION_NOTE}`,
  annotations: readerAnnotations,
  input: ListCommandsInput,
  output: ListCommandsOutput,
  handler: Effect.fn("list_commands")(function* (input) {
    const after = input.since === undefined ? null : decodeCommandId(input.session_id, input.since, "since")
    if (after instanceof TermPilotError) return yield* after
    const terminal = yield* Terminal
    const records = yield* terminal.listCommands(input.session_id, input.limit, after)
    const { redactSecrets } = yield* currentToolSettings
    const { requestAt } = yield* CommandRunner
    const each = yield* Effect.forEach(records.slice(-input.limit), (record) =>
      listed(input.session_id, record, redactSecrets, requestAt)
    )
    return {
      session_id: input.session_id,
      commands: each.map((c) => c.shown),
      redactions: each.reduce((sum, c) => sum + c.redactions, 0)
    }
  }),
  summary: (list, input) => {
    const what = input.since === undefined ? "command(s)" : "command(s) newer than since"
    const last = list.commands.at(-1)
    const newest =
      last === undefined
        ? ""
        : `; the newest: ${last.status}${last.exit_code === null ? "" : `, exit_code ${last.exit_code}`}, ran_by ${last.ran_by}`
    return `${UNTRUSTED_TERMINAL_NOTICE}\nListed ${list.commands.length} ${what} of session ${list.session_id}${newest}.`
  }
})
