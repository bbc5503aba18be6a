/**
 * MarkTrust — which OSC 133 marks of one tmux pane count, pure. Marks are hostile input: any
 * program in the pane can print them. Once the pane's shells announced tokens (`@termpilot_tokens`,
 * TokenBook.ts), only a mark carrying one of them (a nested shell's: derived from its pane's
 * secret) and a prompt number (`n=`) that moves that shell forward (MarkLedger.ts: a replayed mark
 * is refused) counts; with none announced, standard marks count. It also owns the doubt such a
 * refusal raises (only the next verified prompt clears it), the shell behind the last counted mark,
 * and the command TermPilot typed, bound to its shell.
 *
 * A command TermPilot typed is bound to the shell and prompt it was typed at (`commandTyped`):
 * until that shell reports its end (its D of that prompt, or a later prompt of it, which means it
 * ended without a status), only that shell's marks count. The marks of any other shell — an
 * earlier shell or ssh session of this pane, a nested shell never seen, all authentic and
 * "forward" for a ledger that never saw them — count for nothing and put the pane in doubt. One
 * exception: a shell whose command was already running when ours was typed (the ssh, container
 * exec or shell that carries ours) reporting its own end means the shell ours ran in went away
 * (`shellGone`). Sound because a live shell's marks past its current position were never printed,
 * so no recording holds them (specs/security.md, "Marks").
 */
import {
  type Osc133Mark,
  osc133Seq,
  osc133Shell,
  osc133Token,
  parseOsc133,
  type TokenAnnouncement
} from "../Osc133.js"
import { letterOf, MarkLedger, type MarkLetter } from "./MarkLedger.js"
import { TokenBook } from "./TokenBook.js"

/**
 * A mark that counts, and the prompt id of our command when it says the shell that ran it went
 * away; with the key of the shell that marked (its token, or token/shell id) and its prompt
 * number, for a shell's own token mark (null for a standard mark).
 */
export interface Admitted {
  readonly mark: Osc133Mark
  readonly shellGone: string | null
  readonly shell: { readonly key: string; readonly seq: number } | null
}

/**
 * A command TermPilot typed, bound to the shell it was typed in: the mark key of that shell (its
 * token, or token/shell id), the prompt number it was typed at, the prompt id the runner holds, and
 * the shells whose command was running then (by key, at that prompt number): the ones that carry it.
 */
interface Binding {
  readonly key: string
  readonly seq: number
  readonly promptId: string
  readonly enclosing: ReadonlyMap<string, number>
}

/**
 * Whether a mark of shell `key` ends a shell that carries the command `bound`: its D of the prompt
 * whose command was running when ours was typed, or any mark of a later prompt of it.
 */
const endsCarrier = (bound: Binding, key: string, seq: number, letter: MarkLetter): boolean => {
  const at = bound.enclosing.get(key)
  return at !== undefined && (letter === "D" ? seq >= at : seq > at)
}

export class MarkTrust {
  private readonly ledger = new MarkLedger()
  private readonly tokens = new TokenBook()
  /** Whether the pane's announced tokens were ever read; until then no mark is trusted unchecked. */
  private read: boolean
  private doubtReason: string | null = null
  /** The announcement behind the last counted mark (a nested shell's: its pane's secret), null for a standard mark. */
  private lastShell: TokenAnnouncement | null = null
  /** The key (token, or token/shell id) and prompt number of the last counted mark; null for a standard mark. */
  private lastKey: string | null = null
  private lastSeq: number | null = null
  /** The command of ours in flight, bound to its shell (`commandTyped`); null when none. */
  private bound: Binding | null = null

  /** `tokens`: the pane's `@termpilot_tokens` entries when known; omitted, they must be read first. */
  constructor(tokens?: ReadonlyArray<string>) {
    this.read = tokens !== undefined
    if (tokens !== undefined) this.tokens.learn(tokens)
  }

  /** Why the stream cannot be believed until the shell's next verified prompt; null when it can. */
  get doubt(): string | null {
    return this.doubtReason
  }

  /** The announcement behind the last counted mark; null for a standard mark or none. */
  get shell(): TokenAnnouncement | null {
    return this.lastShell
  }

  /** Whether the pane's announced tokens were ever read. */
  get tokensRead(): boolean {
    return this.read
  }

  /** The `@termpilot_tokens` entries known now. */
  get tokenList(): ReadonlyArray<string> {
    return this.tokens.entries
  }

  /** The pid of the pane's first shell that announced a token. */
  get rootPid(): number | null {
    return this.tokens.firstShellPid
  }

  /** Whether `token` is a shell's own announced token (not a nested secret). */
  owns(token: string): boolean {
    return this.tokens.own(token) !== undefined
  }

  /** Whether `tokens` were read and are exactly the set known. */
  sameTokens(tokens: ReadonlyArray<string>): boolean {
    return this.read && this.tokens.same(tokens)
  }

  /** The pane's announced tokens, freshly read. */
  learn(tokens: ReadonlyArray<string>): void {
    this.tokens.learn(tokens)
    this.read = true
  }

  /** A held mark's `token` was checked against a fresh read (refused from now on unless announced). */
  checked(token: string | null): void {
    this.tokens.checked(token)
  }

  /** Whether the mark `payload` can only be judged after the pane's tokens are (re-)read. */
  needsTokens(payload: string): boolean {
    return !this.read || this.tokens.unknown(osc133Token(payload), osc133Shell(payload))
  }

  /** Something makes the stream uncertain: only a prompt newer than every one seen so far clears it. */
  raiseDoubt(reason: string): void {
    this.doubtReason = reason
    this.ledger.doubtFrom()
  }

  /**
   * The OSC 133 `payload` as a mark that counts, or null when it counts for nothing (unknown,
   * unproved, replayed, another shell's while ours runs: the last three raise doubt).
   */
  admit(payload: string): Admitted | null {
    const mark = parseOsc133(payload)
    if (mark === null) return null
    const letter = letterOf(mark)
    const token = osc133Token(payload)
    const shell = osc133Shell(payload)
    // A shell's own token is announced (and never carries a shell id); a nested shell proves its pane's secret.
    const announcement = this.tokens.prover(token, shell)
    if (token !== null && announcement !== undefined) {
      const key = shell === null ? token : `${token}/${shell}`
      const seq = osc133Seq(payload)
      if (seq === null) {
        this.raiseDoubt(
          "its shell's TermPilot integration is older than this TermPilot (its marks carry no prompt number); re-create it with `termpilot shell-integration` and start a new shell"
        )
        return null
      }
      if (this.ledger.isReplay(key, seq, letter)) {
        this.raiseDoubt("its output replayed shell-integration marks of an earlier prompt")
        return null
      }
      const bound = this.bound
      const carrier = bound !== null && key !== bound.key && endsCarrier(bound, key, seq, letter)
      if (bound !== null && key !== bound.key && !carrier) {
        // Another shell's mark while ours runs: authentic, but nothing says it is new (a shell the
        // ledger never saw, or one that went away with its prompt open, replays as "forward").
        this.ledger.record(key, seq, letter)
        this.raiseDoubt(
          "its output printed shell-integration marks of another shell while a TermPilot command ran there"
        )
        return null
      }
      if (this.ledger.record(key, seq, letter)) this.doubtReason = null
      this.lastShell = announcement
      this.lastKey = key
      this.lastSeq = seq
      // A carrier's end: the shell ours ran in went away, and its D is not taken for the end of ours.
      if (carrier && bound !== null) {
        this.bound = null
        return { mark, shellGone: bound.promptId, shell: { key, seq } }
      }
      // Our shell's D of that prompt, or a later prompt of it: the command is over.
      if (bound !== null && (seq > bound.seq || letter === "D")) this.bound = null
      return { mark, shellGone: null, shell: { key, seq } }
    }
    if (this.tokens.any) return null
    if (letter === "B") {
      this.doubtReason = null
      this.ledger.clearDoubt()
    }
    this.lastShell = null
    this.lastKey = null
    this.lastSeq = null
    return { mark, shellGone: null, shell: null }
  }

  /**
   * The shell that announced `token` is at prompt `seq` (drawn before watching, proved outside the
   * stream): counted as its A and B. False, and nothing changes, unless `token` is a shell's own.
   */
  adopt(token: string, seq: number): boolean {
    const shell = this.tokens.own(token)
    if (shell === undefined) return false
    this.ledger.record(token, seq, "A")
    this.ledger.record(token, seq, "B")
    this.lastShell = shell
    this.lastKey = token
    this.lastSeq = seq
    return true
  }

  /**
   * TermPilot is typing a command at prompt `promptId` (null: none counted yet): binds it to the
   * shell of the last counted mark. A standard integration's prompt (no token) binds nothing.
   *
   * The carriers are the shells whose last counted mark is a C, at that prompt; and a shell of the
   * pane that announced its token but printed no mark since watching began (it was already running
   * ssh when TermPilot started) when `recordOf` (EarlierPrompt.ts's record of the prompt it drew
   * last, which a live shell of that pid and token keeps) says at which prompt: that prompt's D was
   * not printed yet, so no recording holds it.
   */
  commandTyped(
    promptId: string | null,
    recordOf?: (pid: number, token: string) => { readonly seq: number } | null
  ): void {
    if (this.lastKey === null || this.lastSeq === null || promptId === null) {
      this.bound = null
      return
    }
    const enclosing = new Map(this.ledger.running())
    for (const shell of this.tokens.ownShells) {
      if (recordOf === undefined || shell.pid === null || shell.token === this.lastKey) continue
      if (this.ledger.knows(shell.token)) continue
      const record = recordOf(shell.pid, shell.token)
      if (record !== null) enclosing.set(shell.token, record.seq)
    }
    this.bound = { key: this.lastKey, seq: this.lastSeq, promptId, enclosing }
  }

  /** The bound command never reached the pane: nothing is bound. */
  commandNotTyped(): void {
    this.bound = null
  }
}
