/**
 * SendEncoding — the control-mode lines that type text into one pane. The text goes as
 * `send-keys -H` hex bytes of its UTF-8, so nothing in it can be read by tmux's parser as a
 * separator (`;`), a flag (`-n`), a key name (`Enter`, `C-c`), a format (`#{…}`, `#(…)`) or an
 * expansion (`~`, `$VAR`). Enter is a second command on its own line; one command per line keeps
 * exactly one reply block per line.
 */

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"))

/** `61 62 63` for "abc": the UTF-8 bytes of `text` as space-separated hex. */
export const hexBytes = (text: string): string => {
  const bytes = Buffer.from(text, "utf8")
  const parts = new Array<string>(bytes.length)
  for (let i = 0; i < bytes.length; i++) parts[i] = HEX[bytes[i]!]!
  return parts.join(" ")
}

/** The two control lines that type `text` then press Enter in pane `%pane`. */
export const submitLines = (pane: number, text: string): readonly [string, string] => [
  `send-keys -H -t %${pane} ${hexBytes(text)}`,
  `send-keys -t %${pane} Enter`
]
