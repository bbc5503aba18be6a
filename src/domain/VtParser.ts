/**
 * VtParser — the one escape-sequence parser for terminal output (a tmux pane's stream, text shown
 * to the model), pure and incremental: the VT500-series state machine exactly as tmux's `input.c`
 * runs it on a pane's output (3.2a to 3.7c have the same tables), fed decoded text in chunks split
 * anywhere. It reports printable runs, executed C0 controls, CSI sequences, other escape sequences
 * (to a sink that wants them) and complete OSC strings to a sink; everything else (DCS, APC, PM,
 * SOS, tmux's `ESC k` title string) is consumed as the terminal consumes it, so a mark is only ever
 * seen where the terminal sees one.
 *
 * Why our own and not a package: the only well-kept implementation, xterm.js's, is not published
 * apart from a whole terminal (a grid and scrollback per pane), and it differs from tmux exactly
 * where an attacker would aim: xterm.js ends a DCS at any ESC, tmux keeps `ESC ESC` inside a DCS as
 * data (the passthrough `ESC P tmux; … ESC \` with its inner ESCs doubled), and tmux reads `ESC k`
 * as a string. The tests hold this parser to @xterm/headless wherever the two agree, and to tmux's
 * tables where they differ. Choices on the side of caution, where terminals disagree: an OSC cut
 * off by CAN or SUB is not dispatched (tmux would dispatch it, xterm.js drops it). C1 code points
 * (U+0080–U+009F) are controls only with `c1` (text a terminal emulator such as iTerm2 or xterm.js
 * would read so); for a tmux pane they are not (tmux reads UTF-8, where they are characters it does
 * not show).
 */

/** What the parser reports, in stream order. */
export interface VtSink {
  /** A run of printable characters in the ground state. */
  print(text: string): void
  /** A C0 control the terminal executes (in the ground state or inside an ESC or CSI sequence). */
  execute(code: number): void
  /**
   * A complete CSI sequence: its parameter bytes (with any private prefix), final byte, and the
   * intermediate bytes (0x20–0x2f) before the final, if any (up to 4 kept).
   */
  csi(params: string, final: number, intermediates: string): void
  /**
   * A complete OSC (ended by BEL or ESC) with a numeric identifier and a payload within the bound.
   * Returning true pauses the parse right after it (`write` then returns where it stopped).
   */
  osc(ident: number, payload: string): boolean | undefined
  /**
   * A complete escape sequence that is not a CSI or a string (ESC 7, ESC M, ESC ( B…): its final
   * byte and intermediate bytes (up to 4 kept). Optional: a sink without it ignores them.
   */
  escape?(final: number, intermediates: string): void
  /** A string sequence (OSC, DCS, APC, PM, SOS, `ESC k`) began; `at`: the index just past its introducer. */
  stringStart(kind: StringKind, at: number): void
  /** A string sequence was cut off by the bound or by tmux's 5-second timer: the terminal state is in doubt. */
  abandoned(kind: StringKind, reason: "too_long" | "timed_out", length: number): void
}

export type StringKind = "OSC" | "DCS" | "APC" | "PM" | "SOS" | "title"

const S = {
  Ground: 0,
  Escape: 1,
  EscapeIntermediate: 2,
  CsiEntry: 3,
  CsiParam: 4,
  CsiIntermediate: 5,
  CsiIgnore: 6,
  DcsEntry: 7,
  DcsParam: 8,
  DcsIntermediate: 9,
  DcsData: 10,
  DcsEscape: 11,
  DcsIgnore: 12,
  Osc: 13,
  Apc: 14,
  Title: 15,
  ConsumeSt: 16
} as const
type S = (typeof S)[keyof typeof S]

/** tmux resets a string it has waited 5 s for the end of (input.c, input_start_timer). */
export const STRING_TIMEOUT_MS = 5000
/** The longest OSC payload kept; a longer OSC is consumed but not dispatched (tmux discards too). */
export const MAX_OSC_PAYLOAD = 16 * 1024
/** The longest string sequence believed before the terminal's state is taken to be in doubt. */
export const MAX_STRING_LENGTH = 16 * 1024 * 1024

const CAN = 0x18
const SUB = 0x1a
const ESC = 0x1b

/** C0 controls other than CAN, SUB and ESC (which act anywhere). */
const isPlainC0 = (c: number) => c < 0x20 && c !== CAN && c !== SUB && c !== ESC

/** Printable in the ground state: not a C0 control, not DEL, not a C1 code point. */
const isPrintable = (c: number) => c >= 0x20 && c !== 0x7f && (c < 0x80 || c > 0x9f)

export class VtParser {
  /** `c1`: read U+0080–U+009F as C1 controls (CSI, OSC, DCS, SOS, PM, APC, ST and the rest). */
  constructor(private readonly c1 = false) {}

  private state: S = S.Ground
  private params = ""
  /** Intermediate bytes of the ESC or CSI sequence open (up to 4 kept). */
  private interm = ""
  private payload = ""
  private discard = false
  private kind: StringKind = "OSC"
  private length = 0
  private since = 0
  /** The index just past the character being parsed. */
  private at = 0
  /** The time of the current write (0 when no clock is given). */
  private clock = 0

  /** Whether the parser is in the ground state (no sequence open). */
  get inGround(): boolean {
    return this.state === S.Ground
  }

  /** The string sequence now open, if any. */
  get openString(): StringKind | null {
    return this.state >= S.DcsEntry ? this.kind : null
  }

  /** Back to the ground state, as after a reset (nothing is dispatched). */
  reset(): void {
    this.state = S.Ground
    this.payload = ""
    this.params = ""
  }

  /**
   * Parse `text` from `from` on; returns the index it stopped at (text.length unless the sink
   * paused after an OSC). `now` (ms) applies tmux's string timer: a string open for 5 s or more
   * when more bytes come is abandoned first.
   */
  write(text: string, sink: VtSink, now?: number, from = 0): number {
    if (now !== undefined) {
      if (this.state >= S.DcsEntry && now - this.since >= STRING_TIMEOUT_MS) this.abandon(sink, "timed_out")
      this.clock = now
    }
    const n = text.length
    let i = from
    while (i < n) {
      const c = text.charCodeAt(i)
      if (this.state === S.Ground) {
        if (isPrintable(c)) {
          let j = i + 1
          while (j < n && isPrintable(text.charCodeAt(j))) j++
          sink.print(text.slice(i, j))
          i = j
          continue
        }
        i++
        if (c === ESC) this.state = S.Escape
        else if (c < 0x20) sink.execute(c)
        else if (this.c1 && c >= 0x80 && c <= 0x9f) {
          this.at = i
          this.control1(c, sink)
        }
        continue
      }
      i++
      if (this.c1 && c >= 0x80 && c <= 0x9f && this.state !== S.DcsData) {
        if (this.state === S.Osc && c === 0x9c) {
          this.state = S.Ground
          if (this.dispatchOsc(sink)) return i
          continue
        }
        this.at = i
        this.control1(c, sink)
        continue
      }
      if (this.state >= S.DcsEntry && ++this.length > MAX_STRING_LENGTH) {
        this.abandon(sink, "too_long")
        i--
        continue
      }
      if (this.state === S.DcsData) {
        if (c === ESC) this.state = S.DcsEscape
        else if (this.c1 && c === 0x9c) this.state = S.Ground
        continue
      }
      if (this.state === S.DcsEscape) {
        this.state = c === 0x5c ? S.Ground : S.DcsData
        continue
      }
      // Anywhere else: CAN and SUB cancel, ESC starts over (an OSC ends there and is dispatched).
      if (c === CAN || c === SUB || c === ESC) {
        const osc = this.state === S.Osc && c === ESC
        this.state = c === ESC ? S.Escape : S.Ground
        if (c !== ESC) sink.execute(c)
        if (osc && this.dispatchOsc(sink)) return i
        continue
      }
      this.at = i
      if (this.step(c, sink)) return i
    }
    return n
  }

  /** One character in a state other than ground, DCS data or its escape. True: pause. */
  private step(c: number, sink: VtSink): boolean {
    switch (this.state) {
      case S.Escape:
        if (isPlainC0(c)) sink.execute(c)
        else if (c >= 0x20 && c <= 0x2f) {
          this.state = S.EscapeIntermediate
          this.interm = String.fromCharCode(c)
        } else if (c === 0x5b) this.enterCsi()
        else if (c === 0x5d) this.enterString(S.Osc, "OSC", sink)
        else if (c === 0x50) this.enterString(S.DcsEntry, "DCS", sink)
        else if (c === 0x5f) this.enterString(S.Apc, "APC", sink)
        else if (c === 0x5e) this.enterString(S.ConsumeSt, "PM", sink)
        else if (c === 0x58) this.enterString(S.ConsumeSt, "SOS", sink)
        else if (c === 0x6b) this.enterString(S.Title, "title", sink)
        else if (c >= 0x30 && c <= 0x7e) {
          this.state = S.Ground
          sink.escape?.(c, "")
        }
        return false
      case S.EscapeIntermediate:
        if (isPlainC0(c)) sink.execute(c)
        else if (c >= 0x20 && c <= 0x2f) this.addIntermediate(c)
        else if (c >= 0x30 && c <= 0x7e) {
          this.state = S.Ground
          sink.escape?.(c, this.interm)
        }
        return false
      case S.CsiEntry:
      case S.CsiParam:
      case S.CsiIntermediate:
      case S.CsiIgnore:
        this.csiStep(c, sink)
        return false
      case S.DcsEntry:
      case S.DcsParam:
      case S.DcsIntermediate:
        this.dcsHeadStep(c)
        return false
      case S.Osc:
        if (c === 0x07) {
          this.state = S.Ground
          return this.dispatchOsc(sink)
        }
        if (c >= 0x20) {
          if (this.payload.length < MAX_OSC_PAYLOAD) this.payload += String.fromCharCode(c)
          else this.discard = true
        }
        return false
      default:
        // DCS ignore, APC, title, PM/SOS: consumed until ESC, CAN or SUB (handled by the caller).
        return false
    }
  }

  /** A C1 control (with `c1`): the 8-bit form of ESC + (c − 0x40), from any state. */
  private control1(c: number, sink: VtSink): void {
    this.state = S.Escape
    if (c === 0x9c) this.state = S.Ground
    else if (c === 0x90 || c === 0x98 || c === 0x9b || c === 0x9d || c === 0x9e || c === 0x9f)
      this.step(c - 0x40, sink)
    else {
      this.state = S.Ground
      sink.execute(c)
    }
  }

  private csiStep(c: number, sink: VtSink): void {
    if (isPlainC0(c)) {
      sink.execute(c)
      return
    }
    if (c >= 0x40 && c <= 0x7e) {
      if (this.state !== S.CsiIgnore) sink.csi(this.params, c, this.interm)
      this.state = S.Ground
      return
    }
    if (c >= 0x7f) return
    if (this.state === S.CsiIgnore) return
    if (c <= 0x2f) {
      this.state = S.CsiIntermediate
      this.addIntermediate(c)
      return
    }
    // 0x30–0x3f: parameters, or a private prefix first; anything out of order is ignored to the end.
    if (this.state === S.CsiIntermediate || (this.state === S.CsiParam && c >= 0x3c)) {
      this.state = S.CsiIgnore
      return
    }
    this.state = S.CsiParam
    if (this.params.length < 64) this.params += String.fromCharCode(c)
  }

  private dcsHeadStep(c: number): void {
    if (c < 0x20 || c >= 0x7f) return
    if (c >= 0x40) this.state = S.DcsData
    else if (c <= 0x2f) this.state = S.DcsIntermediate
    else if (c === 0x3a || this.state === S.DcsIntermediate || (this.state === S.DcsParam && c >= 0x3c))
      this.state = S.DcsIgnore
    else this.state = S.DcsParam
  }

  private enterCsi(): void {
    this.state = S.CsiEntry
    this.params = ""
    this.interm = ""
  }

  private addIntermediate(c: number): void {
    if (this.interm.length < 4) this.interm += String.fromCharCode(c)
  }

  private enterString(state: S, kind: StringKind, sink: VtSink): void {
    this.state = state
    this.kind = kind
    this.payload = ""
    this.discard = false
    this.length = 0
    this.since = this.clock
    sink.stringStart(kind, this.at)
  }

  private abandon(sink: VtSink, reason: "too_long" | "timed_out"): void {
    const kind = this.kind
    const length = this.length
    this.reset()
    sink.abandoned(kind, reason, length)
  }

  private dispatchOsc(sink: VtSink): boolean {
    const body = this.payload
    this.payload = ""
    if (this.discard) return false
    let k = 0
    while (k < body.length && body.charCodeAt(k) >= 0x30 && body.charCodeAt(k) <= 0x39) k++
    if (k === 0 || k > 9 || (k < body.length && body[k] !== ";")) return false
    return sink.osc(Number(body.slice(0, k)), body.slice(k + 1)) === true
  }
}
