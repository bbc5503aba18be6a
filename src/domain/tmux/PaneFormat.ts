/**
 * PaneFormat — the tmux formats TermPilot asks for and how their replies are read, pure. Every
 * value is `#{q:…}`-quoted and fields are `|`-separated, so a name, title or path holding `|`,
 * spaces or backslashes cannot shift a field. Also the pane flags that decide readiness.
 */

/**
 * Fields of the one-pane check before a send or a read (`display -p -t %N`): up to `pane_path`
 * (the pane's last directory report, which a prompt drawn before watching starts from). Its own
 * tuple, so a FlagRow names only what the check really reads.
 */
export const FLAG_FIELDS = [
  "pane_id",
  "session_id",
  "window_id",
  "window_index",
  "window_active",
  "pane_active",
  "pane_dead",
  "pane_in_mode",
  "pane_mode",
  "alternate_on",
  "pane_input_off",
  "pane_synchronized",
  "cursor_y",
  "pane_height",
  "history_size",
  "history_limit",
  "@termpilot_tokens",
  "@termpilot_claim",
  "@termpilot_tag",
  "pane_pid",
  "pane_current_command",
  "pane_tty",
  "pane_path"
] as const

/** Fields of one pane row (`list-panes -a`) — order is the reply's field order. */
export const PANE_FIELDS = [
  ...FLAG_FIELDS,
  "session_name",
  "window_name",
  "pane_title",
  "pane_current_path"
] as const

export type PaneField = (typeof PANE_FIELDS)[number]
export type PaneRow = Readonly<Record<PaneField, string>>
export type FlagRow = Readonly<Record<(typeof FLAG_FIELDS)[number], string>>

/** `'#{q:a}|#{q:b}|…'` — single-quoted for tmux's command parser (no field name holds a quote). */
export const formatOf = (fields: ReadonlyArray<string>): string =>
  `'${fields.map((f) => `#{q:${f}}`).join("|")}'`

/** The one-pane flag check (`FLAG_FIELDS`) as a control line. */
export const flagsLine = (pane: number) => `display -p -t %${pane} ${formatOf(FLAG_FIELDS)}`

/** Split one reply line on unescaped `|` and undo `q:` backslashes; null when the count is wrong. */
export const parseFields = <F extends string>(
  fields: ReadonlyArray<F>,
  line: string
): Readonly<Record<F, string>> | null => {
  const values: Array<string> = []
  let current = ""
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (c === "\\" && i + 1 < line.length) current += line[++i]
    else if (c === "|") {
      values.push(current)
      current = ""
    } else current += c
  }
  values.push(current)
  if (values.length !== fields.length) return null
  const row = {} as Record<F, string>
  fields.forEach((f, i) => {
    row[f] = values[i]!
  })
  return row
}

/** The pane number of `%N`; null otherwise. */
export const paneNumber = (paneId: string): number | null => {
  const match = /^%(\d+)$/.exec(paneId)
  return match === null ? null : Number(match[1])
}

/** The space-separated tokens of `@termpilot_tokens`. */
export const tokensOf = (value: string): ReadonlyArray<string> => value.split(" ").filter((t) => t !== "")

/** What tmux says about a pane that can make it unfit for typing into. */
export interface PaneFlags {
  readonly dead: boolean
  readonly mode: string | null
  readonly alternateScreen: boolean
  readonly inputOff: boolean
  readonly synchronized: boolean
  /** Tokens the pane's shells announced (`<token>` or `<token>:<pid>` entries). */
  readonly tokens: ReadonlyArray<string>
  /** The pane's own process (tmux's `pane_pid`), null when tmux gave none. */
  readonly panePid: number | null
  /** The claim a TermPilot process wrote before typing there (`@termpilot_claim`), null when none. */
  readonly claim: string | null
  /**
   * The program of the foreground process group of the pane's terminal as tmux names it
   * (`pane_current_command`, read by the tmux server itself: the only such fact for a pane on
   * another host); null or absent when tmux gave none.
   */
  readonly currentCommand?: string | null
  /** The pane's terminal device (`pane_tty`, e.g. `/dev/pts/3`), null or absent when tmux gave none. */
  readonly tty?: string | null
}

export const flagsOf = (row: FlagRow): PaneFlags => ({
  dead: row.pane_dead === "1",
  mode: row.pane_in_mode === "1" ? row.pane_mode || "a mode" : null,
  alternateScreen: row.alternate_on === "1",
  inputOff: row.pane_input_off === "1",
  synchronized: row.pane_synchronized === "1",
  tokens: tokensOf(row["@termpilot_tokens"]),
  panePid: /^[1-9]\d{0,9}$/.test(row.pane_pid) ? Number(row.pane_pid) : null,
  claim: row["@termpilot_claim"] === "" ? null : row["@termpilot_claim"],
  currentCommand: row.pane_current_command === "" ? null : row.pane_current_command,
  tty: row.pane_tty === "" ? null : row.pane_tty
})

/** Why tmux's own state makes a pane `interactive`, or null when nothing does. */
export const interactiveReason = (flags: PaneFlags): string | null => {
  if (flags.dead) return "its process has exited (the pane is dead)"
  if (flags.mode !== null) return `it is in ${flags.mode}`
  if (flags.alternateScreen) return "a full-screen program holds the alternate screen"
  if (flags.inputOff) return "its input is off"
  if (flags.synchronized) return "its window has synchronize-panes on, so keys would reach every pane of it"
  return null
}
