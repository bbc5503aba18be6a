/**
 * ShellStream — reading what a shell really wrote: the OSC 133 / OSC 7 marks in a raw byte stream (in
 * order, with their `tp=` token, `n=` prompt number and `cmd=` command line split off) and what is left once every escape sequence is removed.
 */

export interface Mark {
  /** `A`, `B`, `C`, `D`, `D;7` (the 133 mark without `tp=`), or `7` for OSC 7. */
  readonly mark: string
  /** The `tp=` value, null when absent; for OSC 7, null. */
  readonly token: string | null
  /** The `n=` prompt number, null when absent; for OSC 7, null. */
  readonly seq: number | null
  /** The `cmd=` value as sent (percent-encoded), null when absent. */
  readonly cmd: string | null
  /** OSC 7 payload (`file://host/path`); "" for 133 marks. */
  readonly url: string
  /** Offset just after the sequence in the text it was read from. */
  readonly end: number
}

const OSC = /\x1b\](133|7);([^\x07\x1b]*)(?:\x07|\x1b\\)/g

/** Every OSC 133 and OSC 7 sequence in `text`, in order. */
export const marksIn = (text: string): ReadonlyArray<Mark> =>
  [...text.matchAll(OSC)].map((m) => {
    const end = (m.index ?? 0) + m[0].length
    const payload = m[2] ?? ""
    if (m[1] === "7") return { mark: "7", token: null, seq: null, cmd: null, url: payload, end }
    const parts = payload.split(";")
    const tp = parts.find((p) => p.startsWith("tp="))
    const n = parts.find((p) => p.startsWith("n="))
    const cmd = parts.find((p) => p.startsWith("cmd="))
    return {
      mark: parts.filter((p) => !/^(tp|n|cmd)=/.test(p)).join(";"),
      token: tp === undefined ? null : tp.slice(3),
      seq: n === undefined ? null : Number(n.slice(2)),
      cmd: cmd === undefined ? null : cmd.slice(4),
      url: "",
      end
    }
  })

/** The marks as one string, e.g. `"C D;0 7 A B"`. */
export const markLetters = (text: string): string =>
  marksIn(text)
    .map((m) => m.mark)
    .join(" ")

/** `text` without CSI, OSC and two-byte ESC sequences: what would count as printed (incl. CR, LF, BS). */
export const withoutEscapes = (text: string): string =>
  text
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, "")
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/\x1b[ -/]*[0-~]/g, "")

/** What the pane printed between the last A and B mark of `segment` (the prompt as drawn). */
export const promptText = (segment: string): string => {
  const marks = marksIn(segment)
  const a = marks.findLast((m) => m.mark === "A")
  const b = marks.findLast((m) => m.mark === "B")
  if (a === undefined || b === undefined) throw new Error(`no A…B in ${JSON.stringify(segment)}`)
  return withoutEscapes(segment.slice(a.end, b.end).replace(/\x1b\]133;B[^\x07]*\x07$/, ""))
}
