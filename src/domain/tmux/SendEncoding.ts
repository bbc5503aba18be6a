/**
 * SendEncoding — the control-mode lines that type text into one pane. The text goes as
 * `send-keys -H` hex bytes of its UTF-8, so nothing in it can be read by tmux's parser as a
 * separator (`;`), a flag (`-n`), a key name (`Enter`, `C-c`), a format (`#{…}`, `#(…)`) or an
 * expansion (`~`, `$VAR`). tmux's parser overflows its stack past about 10,000 arguments, so the
 * bytes go in chunks, one `send-keys` per line; Enter is the last line. One command per line keeps
 * exactly one reply block per line. An interrupt is one line holding the one byte ETX.
 */

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"))

/** Bytes per `send-keys -H` line: far below the parser's ~10,000-argument limit. */
export const BYTES_PER_LINE = 2048

/** `61 62 63` for the bytes of "abc". */
export const hexBytes = (bytes: Uint8Array): string => {
  const parts = new Array<string>(bytes.length)
  for (let i = 0; i < bytes.length; i++) parts[i] = HEX[bytes[i]!]!
  return parts.join(" ")
}

/** The control lines that type `text` (UTF-8, in chunks) in pane `%pane`, nothing added. */
export const typeLines = (pane: number, text: string): Array<string> => {
  const bytes = Buffer.from(text, "utf8")
  const lines: Array<string> = []
  for (let at = 0; at < bytes.length; at += BYTES_PER_LINE) {
    lines.push(`send-keys -H -t %${pane} ${hexBytes(bytes.subarray(at, at + BYTES_PER_LINE))}`)
  }
  return lines
}

/** The control lines that type `text` (UTF-8, in chunks) then press Enter in pane `%pane`. */
export const submitLines = (pane: number, text: string): ReadonlyArray<string> => [
  ...typeLines(pane, text),
  `send-keys -t %${pane} Enter`
]

/** The one control line that sends ETX (what Ctrl-C types) to pane `%pane`: no Enter, nothing else. */
export const interruptLine = (pane: number): string => `send-keys -H -t %${pane} 03`
