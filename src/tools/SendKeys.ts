/**
 * send_keys — type literal text and named keys into one exact session, including a busy one or a
 * full-screen program (answer a `[y/N]`, quit a pager, a line into a REPL), only after the person
 * accepted it in the client's approval dialog. Absent in read-only mode.
 */
import { Effect, Schema } from "effect"
import { KEY_NAMES, MAX_KEY_ITEMS } from "../domain/Keys.js"
import { CommandRunner } from "../services/CommandRunner.js"
import { encodeCursor } from "./Cursors.js"
import { OBSERVATION_NOTE } from "./Descriptions.js"
import { identifierField } from "./Fields.js"
import { defineTool } from "./Tool.js"

const KeyItem = Schema.Union([
  Schema.Struct({
    text: Schema.String.annotate({
      description:
        "Literal text, typed as is (no control, escape or invisible characters: send those as named keys)."
    })
  }),
  Schema.Struct({
    key: Schema.Literals(KEY_NAMES).annotate({
      description:
        "A named key: Enter, Tab, Escape, Backspace, Up/Down/Left/Right, Home/End, PageUp/PageDown, F1–F12, C-a … C-z."
    })
  })
])

export const SendKeysInput = Schema.Struct({
  session_id: identifierField(
    "session_id",
    "Exact session_id from list_sessions or get_current_session; never a title or a guess."
  ),
  // The bounds are published only: the flow checks the count (validateKeys) with its own message.
  keys: Schema.Array(KeyItem).check(
    Schema.makeFilter(() => true, {
      description: `What to type, in order, as {"text": …} and {"key": …} items (1 to ${MAX_KEY_ITEMS}); e.g. [{"text": "y"}, {"key": "Enter"}]. No Enter is added.`,
      toJsonSchema: () => ({ minItems: 1, maxItems: MAX_KEY_ITEMS })
    })
  )
})

export const SendKeysOutput = Schema.Struct({
  request_id: Schema.String,
  session_id: Schema.String,
  keys: Schema.String.annotate({
    description: "What was typed, in readable form: text quoted, key names bare."
  }),
  sent: Schema.Boolean.annotate({ description: "Always true: a call that typed nothing is an error." }),
  cursor: Schema.String.annotate({
    description: "A read_terminal cursor from just before the keys: pass it as since to see what they did."
  })
})

export const sendKeysTool = defineTool({
  name: "send_keys",
  title: "Type keys into a terminal session (asks the user first)",
  description:
    "Type literal text and named keys into one exact session, whatever runs there: answer a [y/N] question, " +
    "quit a pager (q), type a line into a REPL. Use it only for what the user asked for, and prefer run_command " +
    "for shell commands at a prompt. Every call first asks the user in the client's dialog, showing the keys and " +
    "the target; nothing is typed unless they accept (declined_by_user, approval_timed_out, approval_unavailable " +
    "otherwise). Never reaches a tmux window with synchronize-panes on or a pane in copy mode (session_not_ready); " +
    "iTerm2 broadcast is suppressed. Returns what was typed and a cursor: call read_terminal with since set to it " +
    `to see the effect. ${OBSERVATION_NOTE}`,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input: SendKeysInput,
  output: SendKeysOutput,
  audit: "keys",
  deadline: "self",
  cancellation: "self",
  handler: Effect.fn("send_keys")(function* (input) {
    const runner = yield* CommandRunner
    const sent = yield* runner.sendKeys(input.session_id, input.keys)
    return { ...sent, cursor: encodeCursor(sent.session_id, sent.cursor) }
  }),
  summary: (sent) =>
    `Typed ${sent.keys} into session ${sent.session_id}. Read the terminal with since=${sent.cursor} to see the effect.`
})
