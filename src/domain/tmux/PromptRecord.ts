/**
 * PromptRecord — the record TermPilot's snippet writes before it draws each prompt (its token, the
 * prompt's number, the prompt and right prompt as the shell expanded them, and the last command the
 * shell ran: its prompt number, exit status, times, directory and line), and whether a pane's
 * screen shows exactly that prompt with nothing typed after it, pure. This is how a prompt drawn
 * before TermPilot watched the pane is proved (src/layers/backends/tmux/EarlierPrompt.ts); anything this
 * module cannot read exactly (a prompt that moves the cursor, a right prompt on several lines, a
 * prompt that shows nothing) proves nothing.
 */
import { decodeUrlText, MAX_ENCODED_COMMAND } from "../Osc133.js"
import { VtParser, type VtSink } from "../VtParser.js"

/**
 * The last command the shell ran before it drew the recorded prompt (a line that ran nothing is
 * none): what a TermPilot started later lists for it (src/layers/backends/tmux/EarlierPrompt.ts).
 */
export interface EarlierCommand {
  /** The prompt number it ran at (less than the record's). */
  readonly seq: number
  readonly exitCode: number
  /** Epoch milliseconds, when the shell has a clock without a fork (bash >= 5.0, zsh; not fish). */
  readonly startedAt: number | null
  readonly finishedAt: number | null
  /** The directory it was typed in (the last OSC 7 before it), when known. */
  readonly cwd: string | null
  /** The line as the shell ran it, when known (bash: when its history saved exactly that line). */
  readonly command: string | null
}

/** What the shell wrote before drawing its prompt. */
export interface PromptRecord {
  readonly token: string
  readonly seq: number
  /** The prompt as expanded (escape sequences included); empty when the shell could not expand it without running anything. */
  readonly prompt: string
  readonly rprompt: string
  /** The last command it ran; null when none yet (or the record is of the first format, `tp1`). */
  readonly last: EarlierCommand | null
}

/** The largest record read (a prompt is a line or a few). */
export const MAX_RECORD_BYTES = 64 * 1024

/** A time as the shells write it, epoch seconds and a fraction (`$EPOCHREALTIME`), in ms; null when empty, undefined when malformed. */
const timeOf = (text: string): number | null | undefined => {
  if (text === "") return null
  return /^\d{1,12}(\.\d{1,20})?$/.test(text) ? Math.round(Number(text) * 1000) : undefined
}

/** The last-command fields of a `tp2` record; null when none ran, undefined when malformed. */
const lastOf = (seq: number, fields: ReadonlyArray<string>): EarlierCommand | null | undefined => {
  const [n, status, start, end, cwd, command] = fields as [string, string, string, string, string, string]
  if (n === "") return fields.every((f) => f === "") ? null : undefined
  if (!/^\d{1,15}$/.test(n) || Number(n) >= seq || !/^\d{1,3}$/.test(status) || Number(status) > 255)
    return undefined
  const startedAt = timeOf(start)
  const finishedAt = timeOf(end)
  const dir = decodeUrlText(cwd)
  const line = command.length > MAX_ENCODED_COMMAND ? null : decodeUrlText(command)
  if (startedAt === undefined || finishedAt === undefined || dir === null || line === null) return undefined
  return {
    seq: Number(n),
    exitCode: Number(status),
    startedAt,
    finishedAt,
    cwd: dir === "" ? null : dir,
    command: line === "" ? null : line
  }
}

/**
 * `tp2 NUL token NUL n NUL prompt NUL rprompt NUL` then the last command's `n NUL status NUL start
 * NUL end NUL cwd NUL line NUL` (all empty when none ran; cwd and line percent-encoded, empty when
 * not known), or the first format `tp1 NUL token NUL n NUL prompt NUL rprompt NUL` that a shell
 * which sourced an older snippet still writes (no last command); null for anything else.
 */
export const parsePromptRecord = (text: string): PromptRecord | null => {
  const fields = text.split("\0")
  const format = fields[0]
  const count = format === "tp1" ? 6 : format === "tp2" ? 12 : -1
  if (fields.length !== count || fields[count - 1] !== "") return null
  const [, token, n, prompt, rprompt] = fields as [string, string, string, string, string]
  if (!/^[0-9a-f]{16,128}$/.test(token) || !/^\d{1,15}$/.test(n)) return null
  const last = format === "tp2" ? lastOf(Number(n), fields.slice(5, 11)) : null
  if (last === undefined) return null
  return { token, seq: Number(n), prompt, rprompt, last }
}

/**
 * The visible text of the last line `expanded` draws (bash's \001/\002 markers and every escape
 * sequence but SGR and strings dropped); null when it does more than print, colour and start lines.
 */
export const lastVisibleLine = (expanded: string): string | null => {
  let line = ""
  let afterCr = false
  let exact = true
  const sink: VtSink = {
    print: (text) => {
      if (afterCr) exact = false
      line += text
    },
    execute: (code) => {
      if (code === 0x0a) {
        line = ""
        afterCr = false
      } else if (code === 0x0d) afterCr = true
      else if (code !== 0x07) exact = false
    },
    csi: (_params, final) => {
      if (final !== 0x6d) exact = false
    },
    osc: () => false,
    stringStart: () => {},
    abandoned: () => {
      exact = false
    }
  }
  const parser = new VtParser()
  parser.write(expanded.replace(/[\u0001\u0002]/g, ""), sink)
  return exact && parser.inGround ? line : null
}

/** Cells a character takes in a terminal: 0 for combining marks, 2 for wide (East Asian, emoji), else 1. */
const charWidth = (cp: number): number => {
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f))
    return 0
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2
  return 1
}

/** The cells `text` takes. */
export const cellWidth = (text: string): number => {
  let width = 0
  for (const ch of text) width += charWidth(ch.codePointAt(0)!)
  return width
}

/** The pane around its cursor, as tmux reports it: the cursor column, and the rows from the cursor's down (trailing spaces trimmed). */
export interface ScreenAtCursor {
  readonly cursorX: number
  readonly rows: ReadonlyArray<string>
}

const trimEnd = (text: string) => text.replace(/ +$/, "")

/** What the pane shows at its cursor, measured against the recorded prompt. */
export type PromptShown = "bare" | "typed"

/**
 * `bare` when the screen shows the recorded prompt with nothing typed after it: the cursor's row
 * is the prompt's last line (then, for a right prompt, only spaces and it), the cursor right after
 * the prompt, and every row below empty. `typed` when that row starts with the prompt and more
 * than the prompt follows it. Null otherwise, and always for a prompt that shows nothing (it would match any
 * blank line).
 */
export const promptShown = (record: PromptRecord, screen: ScreenAtCursor): PromptShown | null => {
  const prompt = lastVisibleLine(record.prompt)
  const right = record.rprompt === "" ? "" : lastVisibleLine(record.rprompt)
  if (prompt === null || right === null || prompt.trim() === "") return null
  const [row, ...below] = screen.rows
  if (row === undefined) return null
  const head = trimEnd(prompt)
  const onlyPrompt = row === head || rightPromptOnly(row, prompt, right)
  if (onlyPrompt) return screen.cursorX === cellWidth(prompt) && below.every((r) => r === "") ? "bare" : null
  return row.startsWith(head) ? "typed" : null
}

/** The row is the prompt, spaces, and the (one-line) right prompt. */
const rightPromptOnly = (row: string, prompt: string, right: string): boolean => {
  const shown = right.trim()
  if (shown === "" || !row.startsWith(prompt) || !row.endsWith(shown)) return false
  return /^ *$/.test(row.slice(prompt.length, row.length - shown.length))
}
