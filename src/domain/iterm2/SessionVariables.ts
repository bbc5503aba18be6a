/**
 * SessionVariables — the session-scope variables TermPilot reads from iTerm2, pure: the ones a
 * session's labels come from (its name, presentation name, tab and window titles) and the ones
 * its metadata and readiness come from (read in ONE variable request per session), what the values
 * read say, and the SessionInfo a placed session's values make.
 */
import type { Readiness, SessionInfo } from "../Session.js"
import { CLAIM_VARIABLE } from "./ClaimVariable.js"
import type { Placement } from "./Layout.js"
import { asString } from "./VariableValue.js"

/** The variables a session's titles come from: its name, presentation name, tab and window titles. */
export const LABEL_VARIABLES = ["name", "presentationName", "tab.title", "tab.window.title"] as const

/** A session's labels from its LABEL_VARIABLES values: window title, tab title, then its name. */
export const labelsOf = (values: ReadonlyArray<unknown>): ReadonlyArray<string> => {
  const [name, presentation, tab, window] = values
  return [asString(window), asString(tab), asString(name) ?? asString(presentation)].filter(
    (t): t is string => t !== null
  )
}

/** Session-scope variables fetched for every listed session, in one request. */
export const METADATA_VARIABLES = [
  ...LABEL_VARIABLES,
  "hostname",
  "username",
  "path",
  "tty",
  "pid",
  "jobName",
  "showingAlternateScreen",
  "profileName",
  "user.termpilot_tag",
  CLAIM_VARIABLE
] as const

export type MetadataVariable = (typeof METADATA_VARIABLES)[number]

/** The value of `name` among values read for METADATA_VARIABLES, in order. */
export const metadataValue = (values: ReadonlyArray<unknown>, name: MetadataVariable): unknown =>
  values[METADATA_VARIABLES.indexOf(name)]

/** The same, as a label or path: a non-empty string, else null. */
const metadataText = (values: ReadonlyArray<unknown>, name: MetadataVariable): string | null =>
  asString(metadataValue(values, name))

/**
 * A placed session as the tools report it, from its METADATA_VARIABLES values (in order), its
 * readiness (claims already taken into account) and whether it hosts the MCP client TermPilot
 * serves (decided by the caller from its `pid` and `tty`); `current` is the focused session's id.
 */
export const toSessionInfo = (
  placement: Placement,
  current: string | null,
  values: ReadonlyArray<unknown>,
  readiness: Readiness,
  hostsClient: boolean
): SessionInfo => {
  const text = (name: MetadataVariable) => metadataText(values, name)
  return {
    session_id: placement.sessionId,
    backend: "iterm2",
    window_id: placement.windowId,
    tab_id: placement.tabId,
    window_number: placement.windowNumber,
    window_title: text("tab.window.title"),
    tab_title: text("tab.title"),
    session_title: text("name") ?? text("presentationName") ?? placement.summaryTitle,
    hostname: text("hostname"),
    username: text("username"),
    cwd: text("path"),
    tty: text("tty"),
    job_name: text("jobName"),
    profile_name: text("profileName"),
    via: null,
    tag: text("user.termpilot_tag"),
    is_current: placement.sessionId === current,
    buried: placement.buried,
    hosts_this_client: hostsClient,
    execution_readiness: readiness
  }
}
