/**
 * PaneStream — what one tmux pane's output stream says about its shell, pure: UTF-8 decoded per
 * pane (a character may be split between `%output` lines), parsed by the one VT parser (so a mark
 * inside a DCS passthrough or any other string is no mark), OSC 133 marks authenticated by the
 * pane's announced `tp=` tokens (TokenBook.ts) and moved forward by their `n=` prompt numbers (see
 * MarkLedger.ts: a replayed mark is refused), the prompt counter and the PromptEvents the marks
 * mean, whether anything was typed since the prompt was drawn (PromptColumn.ts follows the cursor
 * after it), a prompt drawn before watching once proved (`adopt`), doubt (a string cut off, a replay) that only the
 * next verified prompt clears, and the rendered, bounded output between C and D of each command
 * that started while the pane was watched (`record`).
 *
 * A command TermPilot typed is bound to the shell and prompt it was typed at (`commandTyped`):
 * until that shell reports its end (its D of that prompt, or a later prompt of it, which means it
 * ended without a status), only that shell's marks move the pane's prompt, phase and capture. The
 * marks of any other shell — an earlier shell or ssh session of this pane, a nested shell never
 * seen, all authentic and "forward" for a ledger that never saw them — end nothing, cut nothing
 * and make no event; they put the pane in doubt. One exception: a shell whose command was already
 * running when ours was typed (the ssh, container exec or shell that carries ours) reporting its own
 * end means the shell ours ran in went away (`ShellGone`). Sound because a live shell's marks past
 * its current position were never printed, so no recording holds them (specs/security.md, "Marks").
 */

import type { PromptEvent } from "../../services/PromptTracker.js"
import {
  type Osc133Mark,
  osc133Seq,
  osc133Shell,
  osc133Token,
  type PromptPhase,
  parseOsc7,
  parseOsc133,
  parseOsc1337,
  stepPrompt,
  type TokenAnnouncement
} from "../Osc133.js"
import { type StringKind, VtParser, type VtSink } from "../VtParser.js"
import { MarkLedger } from "./MarkLedger.js"
import { PromptColumn } from "./PromptColumn.js"
import { type RenderedLines, TextRender, unrenderedNote } from "./TextRender.js"
import { TokenBook } from "./TokenBook.js"

/** The letter of the last counted mark, null when none was seen since watching started. */
export type LastMark = "A" | "B" | "C" | "D" | null

/** What the stream says, for the readiness verdict. */
export interface StreamFacts {
  readonly lastMark: LastMark
  /** Something visible (or a string sequence that is no verified mark) was written since the last counted `B`. */
  readonly echoedSinceB: boolean
  /** The current prompt's id (the counter of counted `A` marks), null before the first. */
  readonly promptId: string | null
  /** The stream is held at a mark whose token is being checked: its newest state is not known. */
  readonly held: boolean
  /** Why the stream cannot be believed until the shell's next verified prompt; null when it can. */
  readonly doubt: string | null
  /** The escape string the pane's output is inside now (the terminal is mid-sequence), if any. */
  readonly openString: StringKind | null
  /** The process id the shell of the last counted mark announced with its token, if it did. */
  readonly shellPid: number | null
  /**
   * When the last counted mark came from a nested shell (one that marks with its pane's nested
   * secret: over ssh, in a container), the pid of the shell in the pane that exported that secret.
   */
  readonly nestedUnder: number | null
}

/** Events made by one step, and whether the stream waits for the pane's tokens to be re-read. */
export interface StreamStep {
  readonly events: ReadonlyArray<PromptEvent>
  readonly needTokens: boolean
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

/** Outputs of finished commands kept per pane (the runner reads its own right after its D). */
const KEPT_OUTPUTS = 8

const LETTER = {
  PromptStart: "A",
  CommandLineStart: "B",
  CommandExecuted: "C",
  CommandFinished: "D"
} as const

/**
 * Whether a mark of shell `key` ends a shell that carries the command `bound`: its D of the prompt
 * whose command was running when ours was typed, or any mark of a later prompt of it.
 */
const endsCarrier = (bound: Binding, key: string, seq: number, letter: string): boolean => {
  const at = bound.enclosing.get(key)
  return at !== undefined && (letter === "D" ? seq >= at : seq > at)
}

export class PaneStream implements VtSink {
  private readonly decoder = new TextDecoder("utf-8")
  private readonly parser = new VtParser()
  private readonly render = new TextRender()
  private readonly ledger = new MarkLedger()
  private readonly column = new PromptColumn()
  private readonly tokens = new TokenBook()
  /** A mark whose token must be checked against a fresh read of the pane's tokens, and what followed it. */
  private blocked: { payload: string; token: string | null } | null = null
  private backlog: Array<string> = []
  private events: Array<PromptEvent> = []
  private phase: PromptPhase = "none"
  /** A D came since the last B (so the next A is a new prompt, not a redraw of this one). */
  private endedSinceDrawn = false
  private last: LastMark = null
  private echoed = false
  private counter = 0
  private capturing = false
  private doubtReason: string | null = null
  /** The announcement behind the last counted mark (a nested shell's: its pane's secret), null for a standard mark. */
  private lastShell: TokenAnnouncement | null = null
  /** The key (token, or token/shell id) and prompt number of the last counted mark; null for a standard mark. */
  private lastKey: string | null = null
  private lastSeq: number | null = null
  /** The command of ours in flight, bound to its shell (`commandTyped`); null when none. */
  private bound: Binding | null = null
  /** Render the output of commands that start from now on (set while the pane is watched). */
  record = false
  private readonly outputs = new Map<string, { readonly rendered: RenderedLines; readonly lines: number }>()
  private location: { path: string; host: string | null } | null = null
  private host: { user: string | null; host: string } | null = null

  /** Bytes fed so far (a change means the pane wrote something). */
  private bytesFed = 0

  /** Whether the pane's announced tokens were ever read; until then no mark is trusted unchecked. */
  private tokensRead: boolean

  /** `tokens`: the pane's `@termpilot_tokens` entries when known; omitted, the first mark makes them be read. */
  constructor(tokens?: ReadonlyArray<string>) {
    this.tokensRead = tokens !== undefined
    if (tokens !== undefined) this.tokens.learn(tokens)
  }

  get facts(): StreamFacts {
    return {
      lastMark: this.last,
      echoedSinceB: this.echoed || (this.last === "B" && this.column.astray),
      promptId: this.counter === 0 ? null : String(this.counter),
      held: this.blocked !== null,
      doubt: this.doubtReason,
      openString: this.parser.openString,
      shellPid: this.lastShell === null || this.lastShell.nested ? null : this.lastShell.pid,
      nestedUnder: this.lastShell?.nested === true ? this.lastShell.pid : null
    }
  }

  /** The cwd and host of the last OSC 7, if any. */
  get cwd(): { readonly path: string; readonly host: string | null } | null {
    return this.location
  }

  /** The user and host of the last OSC 1337 RemoteHost (TermPilot's snippet prints it with OSC 7), if any. */
  get remoteHost(): { readonly user: string | null; readonly host: string } | null {
    return this.host
  }

  /** The pid of the pane's first shell that announced a token (the one `via` starts from). */
  get rootPid(): number | null {
    return this.tokens.firstShellPid
  }

  /** Whether the stream is held at a mark whose token must be checked against the pane's list. */
  get waitingForTokens(): boolean {
    return this.blocked !== null
  }

  /** The rendered output of the command typed at `promptId`, if it finished and is still kept. */
  output(promptId: string): RenderedLines | undefined {
    return this.outputs.get(promptId)?.rendered
  }

  /** The rendered output so far of the command typed at `promptId`, if it is being captured now. */
  outputSoFar(promptId: string): RenderedLines | undefined {
    return this.capturingFor(promptId) ? this.render.result() : undefined
  }

  /**
   * How many lines the command typed at `promptId` has written (dropped ones included): so far
   * while it is being captured, in all once it finished and is kept; null when neither.
   */
  lineCount(promptId: string): number | null {
    if (this.capturingFor(promptId)) return this.render.lineCount
    return this.outputs.get(promptId)?.lines ?? null
  }

  private capturingFor(promptId: string): boolean {
    return this.capturing && String(this.counter) === promptId
  }

  /** Bytes the pane wrote; `now` (ms) applies tmux's timer on unterminated strings. */
  feed(bytes: Uint8Array, now?: number): StreamStep {
    this.bytesFed += bytes.length
    const text = this.decoder.decode(bytes, { stream: true })
    if (this.blocked !== null) {
      this.backlog.push(text)
      return { events: [], needTokens: false }
    }
    return this.run(text, now)
  }

  /** How many bytes the pane has written since it was first seen. */
  get fed(): number {
    return this.bytesFed
  }

  /**
   * Whether the stream has nothing of its own to say yet: no mark counted, no doubt, no sequence
   * or string open, nothing held (the state in which a prompt drawn earlier may be adopted).
   */
  get untouched(): boolean {
    return (
      this.last === null &&
      this.doubtReason === null &&
      this.blocked === null &&
      this.parser.inGround &&
      this.tokensRead
    )
  }

  /**
   * Takes the shell that announced `token` to be at the prompt numbered `seq`, drawn before the
   * pane was watched, with nothing typed at it or (`typed`) with text typed (proved outside the
   * stream: EarlierPrompt.ts), as if its A and B, and that text, had been seen. Changes nothing
   * unless the stream is untouched and `token` is a shell's own announced token.
   */
  adopt(token: string, seq: number, typed: boolean): StreamStep {
    const shell = this.tokens.own(token)
    if (!this.untouched || shell === undefined) return { events: [], needTokens: false }
    this.events = []
    this.ledger.record(token, seq, "A")
    this.ledger.record(token, seq, "B")
    this.lastShell = shell
    this.lastKey = token
    this.lastSeq = seq
    this.mark({ _tag: "PromptStart" })
    this.mark({ _tag: "CommandLineStart" })
    this.echoed = typed
    return { events: this.events, needTokens: false }
  }

  /**
   * TermPilot is typing a command at the current prompt (the pane is ready: its last mark is that
   * prompt's B): from now until its shell reports its end, only that shell's marks count for it,
   * and the end of a shell that carries it (one running a command now) is `ShellGone`. A prompt of
   * a standard integration (no token) cannot be told from another shell's, and binds nothing.
   *
   * The carriers are the shells whose last counted mark is a C, at that prompt; and a shell of the
   * pane that announced its token but printed no mark since watching began (it was already running
   * ssh when TermPilot started) when `recordOf` (EarlierPrompt.ts's record of the prompt it drew
   * last, which a live shell of that pid and token keeps) says at which prompt: that prompt's D was
   * not printed yet, so no recording holds it.
   */
  commandTyped(recordOf?: (pid: number, token: string) => { readonly seq: number } | null): void {
    const promptId = this.facts.promptId
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

  /** The command `commandTyped` bound never reached the pane (tmux refused its keys): nothing is bound. */
  commandNotTyped(): void {
    this.bound = null
  }

  /** The `@termpilot_tokens` entries known now. */
  get tokenList(): ReadonlyArray<string> {
    return this.tokens.entries
  }

  /** Whether `tokens` is exactly the set already known (and nothing waits for a re-read). */
  hasTokens(tokens: ReadonlyArray<string>): boolean {
    return this.blocked === null && this.tokensRead && this.tokens.same(tokens)
  }

  /** The pane's announced tokens (`@termpilot_tokens` entries), re-read; resumes a held stream. */
  setTokens(tokens: ReadonlyArray<string>): StreamStep {
    this.tokens.learn(tokens)
    this.tokensRead = true
    const held = this.blocked
    if (held === null) return { events: [], needTokens: false }
    this.blocked = null
    this.tokens.checked(held.token)
    this.events = []
    this.admit(held.payload)
    const events = this.events
    let needTokens = false
    while (!needTokens && this.backlog.length > 0) {
      const step = this.run(this.backlog.shift()!)
      events.push(...step.events)
      needTokens = step.needTokens
    }
    return { events, needTokens }
  }

  private run(text: string, now?: number): StreamStep {
    this.events = []
    const stop = this.parser.write(text, this, now)
    const events = this.events
    if (this.blocked !== null) {
      this.backlog.unshift(text.slice(stop))
      return { events, needTokens: true }
    }
    return { events, needTokens: false }
  }

  // VtSink: what the parser found, in stream order.

  print(text: string): void {
    if (this.last === "B") this.echoed = true
    this.column.print(text)
    if (this.capturing) this.render.print(text)
  }

  execute(code: number): void {
    // A line feed or tab after the prompt is typing; a carriage return or backspace only if the
    // cursor does not come back to the prompt's end (PromptColumn: fish's redraw does).
    if ((code === 0x0a || code === 0x09) && this.last === "B") this.echoed = true
    this.column.execute(code, this.last === "B")
    if (this.capturing) this.render.control(code)
  }

  csi(params: string, final: number): void {
    this.column.csi(params, final, this.last === "B")
    if (this.capturing) this.render.csi(params, final)
  }

  stringStart(): void {
    // Only a verified mark may follow the prompt (counting it clears this again); any other string
    // may hide what was typed.
    if (this.last === "B") this.echoed = true
  }

  abandoned(kind: StringKind, reason: "too_long" | "timed_out", length: number): void {
    const why = reason === "timed_out" ? "was not ended within 5 s" : `ran past ${length} characters`
    this.doubt(`its output opened an escape string (${kind}) that ${why}, so what it showed is uncertain`)
    if (this.capturing) this.render.note(unrenderedNote(kind, length))
  }

  osc(ident: number, payload: string): boolean {
    if (ident === 7) {
      const report = parseOsc7(payload)
      if (report?._tag === "Directory") this.location = { path: report.path, host: report.host }
      return false
    }
    if (ident === 1337) {
      const report = parseOsc1337(payload)
      if (report?._tag === "RemoteHost") this.host = { user: report.user, host: report.host }
    }
    if (ident !== 133) return false
    if (!this.tokensRead || this.tokens.unknown(osc133Token(payload), osc133Shell(payload))) {
      this.blocked = { payload, token: osc133Token(payload) }
      return true
    }
    this.admit(payload)
    return false
  }

  /**
   * Announced tokens → only marks carrying one, with a prompt number that moves forward, count;
   * none announced → standard marks count.
   */
  private admit(payload: string): void {
    const mark = parseOsc133(payload)
    if (mark === null) return
    const letter = LETTER[mark._tag]
    const token = osc133Token(payload)
    const shell = osc133Shell(payload)
    // A shell's own token is announced (and never carries a shell id); a nested shell proves its pane's secret.
    const announcement = this.tokens.prover(token, shell)
    if (token !== null && announcement !== undefined) {
      const key = shell === null ? token : `${token}/${shell}`
      const seq = osc133Seq(payload)
      if (seq === null) {
        this.doubt(
          "its shell's TermPilot integration is older than this TermPilot (its marks carry no prompt number); re-create it with `termpilot shell-integration` and start a new shell"
        )
        return
      }
      if (this.ledger.isReplay(key, seq, letter)) {
        this.doubt("its output replayed shell-integration marks of an earlier prompt")
        return
      }
      const bound = this.bound
      const carrier = bound !== null && key !== bound.key && endsCarrier(bound, key, seq, letter)
      if (bound !== null && key !== bound.key && !carrier) {
        // Another shell's mark while ours runs: authentic, but nothing says it is new (a shell the
        // ledger never saw, or one that went away with its prompt open, replays as "forward").
        this.ledger.record(key, seq, letter)
        this.doubt(
          "its output printed shell-integration marks of another shell while a TermPilot command ran there"
        )
        return
      }
      if (this.ledger.record(key, seq, letter)) this.doubtReason = null
      this.lastShell = announcement
      this.lastKey = key
      this.lastSeq = seq
      if (carrier && bound !== null) this.shellGone(bound, mark)
      // Our shell's D of that prompt, or a later prompt of it: the command is over.
      else if (bound !== null && (seq > bound.seq || letter === "D")) this.bound = null
      this.mark(mark)
      return
    }
    if (this.tokens.any) return
    if (letter === "B") {
      this.doubtReason = null
      this.ledger.clearDoubt()
    }
    this.lastShell = null
    this.lastKey = null
    this.lastSeq = null
    this.mark(mark)
  }

  /**
   * A shell that carries the command `bound` (its command was running when ours was typed) ended:
   * the shell ours ran in went away. Its output so far is kept, the runner learns it with the
   * carrier's exit status, and the carrier's D is not taken for the end of ours.
   */
  private shellGone(bound: Binding, mark: Osc133Mark): void {
    this.bound = null
    if (this.capturing) this.finishCapture(bound.promptId)
    const exitCode = mark._tag === "CommandFinished" ? mark.exitCode : null
    this.events.push({ _tag: "ShellGone", promptId: bound.promptId, exitCode })
    this.phase = "finished"
  }

  private doubt(reason: string): void {
    this.doubtReason = reason
    this.ledger.doubtFrom()
  }

  private mark(mark: Osc133Mark): void {
    // An A while the command line is open and no D came since (a resize, SIGWINCH) is the shell
    // redrawing the same prompt: the command typed at it is still the one that will run there.
    const redraw = mark._tag === "PromptStart" && this.phase === "editing" && !this.endedSinceDrawn
    if (mark._tag === "CommandFinished") this.endedSinceDrawn = true
    if (mark._tag === "CommandLineStart") this.endedSinceDrawn = false
    const { phase, step } = stepPrompt(this.phase, mark)
    this.phase = phase
    const promptId = String(this.counter)
    switch (step._tag) {
      case "NewPrompt":
        if (this.capturing) this.finishCapture(promptId)
        if (!redraw) this.counter++
        break
      case "PromptDrawn":
        this.events.push({ _tag: "Prompt", promptId })
        break
      case "CommandStarted":
        this.capturing = this.record
        this.render.clear()
        this.events.push({ _tag: "CommandStart", promptId, command: null })
        break
      case "CommandEnded":
        if (this.capturing) this.finishCapture(promptId)
        this.events.push({ _tag: "CommandEnd", promptId, exitCode: step.exitCode })
        break
    }
    this.last = LETTER[mark._tag]
    this.echoed = false
    if (mark._tag === "CommandLineStart") this.column.prompt()
  }

  private finishCapture(promptId: string): void {
    this.capturing = false
    this.outputs.set(promptId, { rendered: this.render.result(), lines: this.render.lineCount })
    this.render.clear()
    if (this.outputs.size > KEPT_OUTPUTS) this.outputs.delete(this.outputs.keys().next().value!)
  }
}
