/**
 * Session — the models of one terminal session as the tools report it: its execution readiness
 * (only `ready` accepts run_command) and its description (`SessionInfo`, what list_sessions and
 * get_current_session return). Pure; the Terminal contract (src/services/Terminal.ts) re-exports
 * them, the backends fill them in.
 */
import { Schema } from "effect"

export const Readiness = Schema.Literals([
  "ready",
  "busy",
  "input_pending",
  "interactive",
  "shell_integration_required",
  "unknown"
])
export type Readiness = typeof Readiness.Type

/** One session as the tools report it. Every key is always present; unknown values are null. */
export const SessionInfo = Schema.Struct({
  session_id: Schema.String,
  backend: Schema.Literals(["iterm2", "tmux"]),
  window_id: Schema.NullOr(Schema.String),
  tab_id: Schema.NullOr(Schema.String),
  window_number: Schema.NullOr(Schema.Finite),
  window_title: Schema.NullOr(Schema.String),
  tab_title: Schema.NullOr(Schema.String),
  session_title: Schema.NullOr(Schema.String),
  hostname: Schema.NullOr(Schema.String),
  username: Schema.NullOr(Schema.String),
  cwd: Schema.NullOr(Schema.String),
  /**
   * The programs the session's prompt is reached through from the pane's own shell (e.g. `["ssh"]`;
   * empty for that shell itself), null when the backend cannot tell.
   */
  via: Schema.NullOr(Schema.Array(Schema.String)),
  tty: Schema.NullOr(Schema.String),
  job_name: Schema.NullOr(Schema.String),
  profile_name: Schema.NullOr(Schema.String),
  tag: Schema.NullOr(Schema.String),
  is_current: Schema.Boolean,
  buried: Schema.Boolean,
  /**
   * The MCP client TermPilot serves runs in this session (TermPilot descends from its process, or
   * from a process on its terminal): nothing is ever typed there (`session_hosts_client`). False
   * when that cannot be proved (another host's pane, no process table to read).
   */
  hosts_this_client: Schema.Boolean,
  execution_readiness: Readiness
})
export type SessionInfo = typeof SessionInfo.Type

/** A session's labels as `sessionLabels` gives them: its window, tab and session titles, those it has. */
export const labelsOfSession = (s: SessionInfo): ReadonlyArray<string> =>
  [s.window_title, s.tab_title, s.session_title].filter((t): t is string => t !== null)
