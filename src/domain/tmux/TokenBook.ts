/**
 * TokenBook — the tokens one tmux pane's shells announced (`@termpilot_tokens`: `<token>:<pid>`,
 * and `<secret>:<pid>:nested` for shells started under it without tmux), pure: which shell a mark's
 * `tp=` (and `sh=`) proves — a shell's own announced token (never with a shell id), or a nested
 * shell's sha256("<secret>:<shell id>") for an announced secret, verified once per token and shell
 * id — and
 * which unknown tokens were already checked against a fresh read of the pane's list and refused,
 * so a pane printing made-up tokens cannot make TermPilot re-read the list forever.
 */
import { parseAnnouncement, type TokenAnnouncement } from "../Osc133.js"
import { sha256Hex } from "../Sha256.js"

/** Tokens remembered (refused ones, verified nested ones) before the memory is cleared. */
const KEPT = 256

export class TokenBook {
  private announced = new Map<string, TokenAnnouncement>()
  /** Nested shells' tokens already verified against a secret, by token and shell id. */
  private readonly derived = new Map<string, TokenAnnouncement>()
  private raw: ReadonlyArray<string> = []
  private readonly rejected = new Set<string>()

  /** The `@termpilot_tokens` entries known now. */
  get entries(): ReadonlyArray<string> {
    return this.raw
  }

  /** Whether any shell announced a token (then only marks carrying one count). */
  get any(): boolean {
    return this.announced.size > 0
  }

  /** The pid of the pane's first shell that announced a token, if any. */
  get firstShellPid(): number | null {
    for (const a of this.announced.values()) if (!a.nested && a.pid !== null) return a.pid
    return null
  }

  /** Whether `entries` is exactly the list known now. */
  same(entries: ReadonlyArray<string>): boolean {
    return entries.length === this.raw.length && entries.every((t, i) => this.raw[i] === t)
  }

  /** The pane's entries, freshly read. */
  learn(entries: ReadonlyArray<string>): void {
    this.raw = [...entries]
    this.derived.clear()
    this.announced = new Map(
      entries
        .map(parseAnnouncement)
        .filter((a): a is TokenAnnouncement => a !== null)
        .map((a) => [a.token, a] as const)
    )
  }

  /** The announcement of a shell's own token, if `token` is one. */
  own(token: string): TokenAnnouncement | undefined {
    const a = this.announced.get(token)
    return a === undefined || a.nested ? undefined : a
  }

  /** The announcements of shells' own tokens (not nested secrets). */
  get ownShells(): ReadonlyArray<TokenAnnouncement> {
    return [...this.announced.values()].filter((a) => !a.nested)
  }

  /** The shell a mark with `token` (and shell id `shell`) proves, if any. */
  prover(token: string | null, shell: string | null): TokenAnnouncement | undefined {
    if (token === null) return undefined
    const own = this.announced.get(token)
    if (own !== undefined) return own.nested || shell !== null ? undefined : own
    return this.nested(token, shell)
  }

  /** Whether a mark with `token` calls for a fresh read of the pane's list (not known, not yet refused). */
  unknown(token: string | null, shell: string | null): boolean {
    return (
      token !== null &&
      !this.announced.has(token) &&
      this.nested(token, shell) === undefined &&
      !this.rejected.has(token)
    )
  }

  /** `token` was checked against a fresh read: refused unless it is announced now. */
  checked(token: string | null): void {
    if (token === null || this.announced.has(token)) return
    if (this.rejected.size >= KEPT) this.rejected.clear()
    this.rejected.add(token)
  }

  /** The nested secret a nested shell's token proves (verified once per token, then remembered). */
  private nested(token: string, shell: string | null): TokenAnnouncement | undefined {
    if (shell === null || !/^[0-9a-f]{64}$/.test(token)) return undefined
    // Remembered per token and shell id: the same token with another shell id proves nothing.
    const key = `${token}/${shell}`
    const known = this.derived.get(key)
    if (known !== undefined) return known
    for (const a of this.announced.values()) {
      if (a.nested && sha256Hex(`${a.token}:${shell}`) === token) {
        if (this.derived.size >= KEPT) this.derived.clear()
        this.derived.set(key, a)
        return a
      }
    }
    return undefined
  }
}
