/**
 * ControlFraming — tmux control-mode (`tmux -C`) framing, pure: bulk stdout chunks → lines →
 * events. Command replies are the lines between `%begin T N F` and the `%end`/`%error` with the
 * same triple (a reply line may itself start with `%`); `%output` / `%extended-output` carry a
 * pane's bytes with octal escapes undone (bytes ≥ 0x80 arrive raw); everything else starting with
 * `%` outside a block is a notification; `%exit` ends the client.
 */

/** One thing the control client said. */
export type ControlEvent =
  /** A reply block. `ours` is true for commands this client sent (flags 1), false for the attach or hooks. */
  | {
      readonly _tag: "Reply"
      readonly ok: boolean
      readonly ours: boolean
      readonly lines: ReadonlyArray<string>
    }
  /** Bytes a pane wrote (`%output %N …` / `%extended-output %N age … : …`). */
  | { readonly _tag: "Output"; readonly pane: number; readonly bytes: Uint8Array }
  /** Any other `%name args` line outside a reply block. */
  | { readonly _tag: "Notification"; readonly name: string; readonly args: string }
  /** `%exit [reason]`: the server is about to close this client. */
  | { readonly _tag: "Exit"; readonly reason: string }

const NL = 0x0a
const BACKSLASH = 0x5c

const isOctal = (b: number | undefined): b is number => b !== undefined && b >= 0x30 && b <= 0x37

/**
 * Undo tmux's `\ooo` escaping of `raw` into `out` from its start; returns how many bytes it wrote.
 * `out` may be `raw` itself: the result is never longer and is written behind the reading point.
 */
const unescapeInto = (raw: Uint8Array, out: Uint8Array): number => {
  let n = 0
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!
    const d1 = raw[i + 1]
    const d2 = raw[i + 2]
    const d3 = raw[i + 3]
    if (b === BACKSLASH && isOctal(d1) && isOctal(d2) && isOctal(d3)) {
      out[n++] = ((d1 - 0x30) * 64 + (d2 - 0x30) * 8 + (d3 - 0x30)) & 0xff
      i += 3
    } else {
      out[n++] = b
    }
  }
  return n
}

/** Undo tmux's `\ooo` escaping of bytes below 0x20 and of the backslash itself (`raw` is left as is). */
export const unescapeOutput = (raw: Uint8Array): Uint8Array => {
  if (raw.indexOf(BACKSLASH) < 0) return raw
  const out = new Uint8Array(raw.length)
  return out.subarray(0, unescapeInto(raw, out))
}

/**
 * The same, in place: `value` (a view into a chunk the framer owns) is overwritten with its
 * unescaped bytes, of which a view is returned. No copy per `%output` line: at 5 MB of output that
 * was ~50,000 buffers, one per line.
 */
const unescapeInPlace = (value: Uint8Array): Uint8Array =>
  value.indexOf(BACKSLASH) < 0
    ? value
    : new Uint8Array(value.buffer, value.byteOffset, unescapeInto(value, value))

/**
 * Notification names tmux 3.3a–3.8 may emit. In 3.3a a notification caused by a command can
 * appear inside that command's reply block; `%output` never does (it is queued behind replies).
 */
export const NOTIFICATIONS: ReadonlySet<string> = new Set([
  "%client-detached",
  "%client-session-changed",
  "%config-error",
  "%continue",
  "%exit",
  "%layout-change",
  "%message",
  "%pane-mode-changed",
  "%paste-buffer-changed",
  "%paste-buffer-deleted",
  "%pause",
  "%session-changed",
  "%session-renamed",
  "%session-window-changed",
  "%sessions-changed",
  "%subscription-changed",
  "%unlinked-window-add",
  "%unlinked-window-close",
  "%unlinked-window-renamed",
  "%window-add",
  "%window-close",
  "%window-pane-changed",
  "%window-renamed"
])

/** Whether a line inside a reply block is really a (3.3a-misplaced) notification. */
export const isNotificationLine = (line: string): boolean => {
  const space = line.indexOf(" ")
  return NOTIFICATIONS.has(space < 0 ? line : line.slice(0, space))
}

const PREFIX_OUTPUT = Buffer.from("%output %")
const PREFIX_EXTENDED = Buffer.from("%extended-output %")

const startsWith = (line: Uint8Array, prefix: Uint8Array): boolean => {
  if (line.length < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) if (line[i] !== prefix[i]) return false
  return true
}

/** `%N <value>` after a prefix: the pane number and where the value starts; null if malformed. */
const paneAndValue = (line: Uint8Array, from: number): { pane: number; at: number } | null => {
  let pane = 0
  let i = from
  while (i < line.length && line[i]! >= 0x30 && line[i]! <= 0x39) pane = pane * 10 + (line[i++]! - 0x30)
  if (i === from || i >= line.length || line[i] !== 0x20) return null
  return { pane, at: i + 1 }
}

/** The value after ` : ` in `%extended-output %N <age> … : <value>`. */
const extendedValue = (line: Uint8Array, from: number): number => {
  for (let i = from; i + 2 < line.length; i++) {
    if (line[i] === 0x20 && line[i + 1] === 0x3a && line[i + 2] === 0x20) return i + 3
  }
  return -1
}

/** Stateful line framer for one control client's stdout. */
export class ControlFramer {
  private partial: Array<Uint8Array> = []
  private block: { readonly triple: string; readonly ours: boolean; lines: Array<string> } | null = null

  /**
   * Feed one stdout chunk; returns the events its complete lines make. The framer takes the chunk:
   * an Output's bytes are a view into it, unescaped in place (the caller must not reuse it).
   */
  feed(chunk: Uint8Array): Array<ControlEvent> {
    const events: Array<ControlEvent> = []
    let start = 0
    for (;;) {
      const nl = chunk.indexOf(NL, start)
      if (nl < 0) break
      let line = chunk.subarray(start, nl)
      if (this.partial.length > 0) {
        this.partial.push(line)
        line = Buffer.concat(this.partial)
        this.partial = []
      }
      this.line(line, events)
      start = nl + 1
    }
    if (start < chunk.length) this.partial.push(Uint8Array.prototype.slice.call(chunk, start))
    return events
  }

  private line(raw: Uint8Array, events: Array<ControlEvent>): void {
    const bytes = raw.length > 0 && raw[raw.length - 1] === 0x0d ? raw.subarray(0, raw.length - 1) : raw
    if (this.block !== null) {
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8")
      if (text === `%end ${this.block.triple}` || text === `%error ${this.block.triple}`) {
        events.push({
          _tag: "Reply",
          ok: text[1] === "e" && text[2] === "n",
          ours: this.block.ours,
          lines: this.block.lines
        })
        this.block = null
      } else {
        this.block.lines.push(text)
      }
      return
    }
    if (startsWith(bytes, PREFIX_OUTPUT)) {
      const pv = paneAndValue(bytes, PREFIX_OUTPUT.length)
      if (pv !== null)
        events.push({ _tag: "Output", pane: pv.pane, bytes: unescapeInPlace(bytes.subarray(pv.at)) })
      return
    }
    if (startsWith(bytes, PREFIX_EXTENDED)) {
      const pv = paneAndValue(bytes, PREFIX_EXTENDED.length)
      const at = pv === null ? -1 : extendedValue(bytes, pv.at - 1)
      if (pv !== null && at >= 0) {
        events.push({ _tag: "Output", pane: pv.pane, bytes: unescapeInPlace(bytes.subarray(at)) })
      }
      return
    }
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8")
    if (!text.startsWith("%")) return
    const space = text.indexOf(" ")
    const name = space < 0 ? text : text.slice(0, space)
    const args = space < 0 ? "" : text.slice(space + 1)
    if (name === "%begin") {
      const flags = args.split(" ")[2]
      this.block = { triple: args, ours: flags !== undefined && (Number(flags) & 1) === 1, lines: [] }
    } else if (name === "%exit") {
      events.push({ _tag: "Exit", reason: args })
    } else {
      events.push({ _tag: "Notification", name, args })
    }
  }
}
