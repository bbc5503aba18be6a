/**
 * PromptColumn — where the cursor is against the end of the prompt, pure: the cells of the line
 * the prompt ends on (known only from a line start on, and only while nothing but text and SGR was
 * written on it), and, after the prompt's B mark, the cursor moves that print nothing — a carriage
 * return, backspace, `CSI n C`, `CSI n D`, `CSI n G`. fish ends every prompt draw with
 * `ESC[K CR ESC[<width>C`: the cursor leaves the prompt's end and comes back to it, nothing typed.
 * So a move after B reads as typed input unless the cursor is back exactly at the prompt's end;
 * any other sequence that moves the cursor after B reads as typed input.
 */
import { cellWidth } from "./PromptRecord.js"

/** Printable ASCII only: one cell per character. */
const NARROW = /^[\x20-\x7e]*$/

const CR = 0x0d
const LF = 0x0a
const BS = 0x08

/** CSI finals that only colour, erase to the right or set modes: no cursor move. */
const STILL = new Set([0x6d, 0x4b, 0x68, 0x6c, 0x71])
/** CSI finals that move the cursor within the line. */
const ALONG = { forward: 0x43, back: 0x44, column: 0x47 } as const

const count = (params: string): number => {
  const n = Number.parseInt(params, 10)
  return Number.isFinite(n) && n > 0 ? n : 1
}

export class PromptColumn {
  /** The cells written on the current line since its start; null when not known. */
  private line: number | null = null
  private afterCr = false
  private promptEnd: number | null = null
  private col = 0
  /** Since B: the cursor moved (and must be back at the prompt's end), or moved in a way not followed. */
  private moved = false
  private lost = false

  /** A B mark: the prompt ends where the cursor is now. */
  prompt(): void {
    this.promptEnd = this.line
    this.col = this.promptEnd ?? 0
    this.moved = false
    this.lost = false
  }

  /** Whether, since B, the cursor moved and is not back at the prompt's end (or could not be followed). */
  get astray(): boolean {
    return this.lost || (this.moved && (this.promptEnd === null || this.col !== this.promptEnd))
  }

  print(text: string): void {
    this.afterCr = false
    if (this.line !== null) this.line += NARROW.test(text) ? text.length : cellWidth(text)
  }

  /** A C0 control; `sinceB`: the prompt's B is the last mark. */
  execute(code: number, sinceB: boolean): void {
    if (code === CR) {
      this.line = 0
      this.afterCr = true
      this.move(sinceB, 0)
      return
    }
    if (code === LF) {
      // The pty turns LF into CR LF; a bare LF keeps the column, which is then not known.
      this.line = this.afterCr ? 0 : null
      if (sinceB) this.lost = true
    } else if (code === BS) {
      this.line = null
      this.move(sinceB, Math.max(0, this.col - 1))
    } else if (code === 0x09) {
      this.line = null
      if (sinceB) this.lost = true
    }
    this.afterCr = false
  }

  csi(params: string, final: number, sinceB: boolean): void {
    this.afterCr = false
    if (STILL.has(final)) return
    this.line = null
    if (!sinceB) return
    if (params.startsWith("?") || params.startsWith(">") || /[^0-9;]/.test(params)) this.lost = true
    else if (final === ALONG.forward) this.move(true, this.col + count(params))
    else if (final === ALONG.back) this.move(true, Math.max(0, this.col - count(params)))
    else if (final === ALONG.column) this.move(true, count(params) - 1)
    else this.lost = true
  }

  private move(sinceB: boolean, to: number): void {
    if (!sinceB) return
    this.col = to
    this.moved = true
  }
}
