/**
 * PaneStream — what one tmux pane's output stream says about its shell, pure. It owns the parsing:
 * UTF-8 decoded per pane (a character may be split between `%output` lines), parsed by the one VT
 * parser (so a mark inside a DCS passthrough or any other string is no mark), OSC 7 and OSC 1337
 * RemoteHost reports, and the stream held at a mark whose token must first be checked against a
 * fresh read of the pane's tokens (what follows waits behind it). It hands each OSC 133 mark to
 * MarkTrust.ts (which marks count: tokens, prompt numbers, doubt, the command bound to its shell)
 * and each counted mark and all other output to PromptProgress.ts (prompt phase and counter,
 * events, typed input, command output), and sums up their state as the pane's `facts` for the
 * readiness verdict (TmuxReadiness.ts) and `untouched`, the state in which a prompt drawn before
 * watching may be adopted once proved (EarlierPrompt.ts).
 */
import { osc133Command, osc133Token, parseOsc7, parseOsc1337 } from "../Osc133.js"
import type { PromptEvent } from "../PromptEvent.js"
import { type StringKind, VtParser, type VtSink } from "../VtParser.js"
import { CommandHistory } from "./CommandHistory.js"
import { MarkTrust } from "./MarkTrust.js"
import { type LastMark, PromptProgress } from "./PromptProgress.js"
import type { EarlierCommand } from "./PromptRecord.js"
import { type RenderedLines, unrenderedNote } from "./TextRender.js"

export type { LastMark }

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

const nothing = (): StreamStep => ({ events: [], needTokens: false })

export class PaneStream implements VtSink {
  private readonly decoder = new TextDecoder("utf-8")
  private readonly parser = new VtParser()
  private readonly trust: MarkTrust
  private readonly progress = new PromptProgress()
  /** The pane's commands and where their output lies (fed every parsed byte and every counted mark). */
  readonly history = new CommandHistory()
  /** A mark whose token must be checked against a fresh read of the pane's tokens, and what followed it. */
  private blocked: { payload: string; token: string | null } | null = null
  private backlog: Array<string> = []
  private events: Array<PromptEvent> = []
  private location: { path: string; host: string | null } | null = null
  private host: { user: string | null; host: string } | null = null
  /** Bytes fed so far (a change means the pane wrote something). */
  private bytesFed = 0

  /** `tokens`: the pane's `@termpilot_tokens` entries when known; omitted, the first mark makes them be read. */
  constructor(tokens?: ReadonlyArray<string>) {
    this.trust = new MarkTrust(tokens)
  }

  /** Render the output of commands that start from now on (set while the pane is watched). */
  get record(): boolean {
    return this.progress.capture.record
  }

  set record(on: boolean) {
    this.progress.capture.record = on
  }

  get facts(): StreamFacts {
    const shell = this.trust.shell
    return {
      lastMark: this.progress.last,
      echoedSinceB: this.progress.typedSinceB,
      promptId: this.progress.promptId,
      held: this.blocked !== null,
      doubt: this.trust.doubt,
      openString: this.parser.openString,
      shellPid: shell === null || shell.nested ? null : shell.pid,
      nestedUnder: shell?.nested === true ? shell.pid : null
    }
  }

  /**
   * Whether the stream has nothing of its own to say yet: no mark counted, no doubt, no sequence
   * or string open, nothing held (the state in which a prompt drawn earlier may be adopted).
   */
  get untouched(): boolean {
    return (
      this.progress.last === null &&
      this.trust.doubt === null &&
      this.blocked === null &&
      this.parser.inGround &&
      this.trust.tokensRead
    )
  }

  /** The cwd and host of the last OSC 7, if any. */
  get cwd(): { readonly path: string; readonly host: string | null } | null {
    return this.location
  }

  /** An OSC 7 the pane wrote before the stream began (tmux's `pane_path`), taken until one is seen here. */
  seedCwd(path: string, host: string | null): void {
    this.location ??= { path, host }
  }

  /** The user and host of the last OSC 1337 RemoteHost (TermPilot's snippet prints it with OSC 7), if any. */
  get remoteHost(): { readonly user: string | null; readonly host: string } | null {
    return this.host
  }

  /** The pid of the pane's first shell that announced a token (the one `via` starts from). */
  get rootPid(): number | null {
    return this.trust.rootPid
  }

  /** Whether the stream is held at a mark whose token must be checked against the pane's list. */
  get waitingForTokens(): boolean {
    return this.blocked !== null
  }

  /** How many bytes the pane has written since it was first seen. */
  get fed(): number {
    return this.bytesFed
  }

  /** The `@termpilot_tokens` entries known now. */
  get tokenList(): ReadonlyArray<string> {
    return this.trust.tokenList
  }

  /** The rendered output of the command typed at `promptId`, if it finished and is still kept. */
  output(promptId: string): RenderedLines | undefined {
    return this.progress.output(promptId)
  }

  /** The rendered output so far of the command typed at `promptId`, if it is being captured now. */
  outputSoFar(promptId: string): RenderedLines | undefined {
    return this.progress.outputSoFar(promptId)
  }

  /**
   * How many lines the command typed at `promptId` has written (dropped ones included): so far
   * while it is being captured, in all once it finished and is kept; null when neither.
   */
  lineCount(promptId: string): number | null {
    return this.progress.lineCount(promptId)
  }

  /** Bytes the pane wrote; `now` (ms) applies tmux's timer on unterminated strings. */
  feed(bytes: Uint8Array, now?: number): StreamStep {
    this.bytesFed += bytes.length
    const text = this.decoder.decode(bytes, { stream: true })
    if (this.blocked !== null) {
      this.backlog.push(text)
      return nothing()
    }
    return this.run(text, now)
  }

  /**
   * Takes the shell that announced `token` to be at the prompt numbered `seq`, drawn before the
   * pane was watched, with nothing typed at it or (`typed`) with text typed (proved outside the
   * stream: EarlierPrompt.ts), as if its A and B, and that text, had been seen. Changes nothing
   * unless the stream is untouched and `token` is a shell's own announced token.
   */
  adopt(token: string, seq: number, typed: boolean): StreamStep {
    if (!this.untouched || !this.trust.adopt(token, seq)) return nothing()
    return { events: this.progress.adopt(typed), needTokens: false }
  }

  /** Shell `token`'s last command from before watching (EarlierPrompt.ts): the first entry, while the stream is untouched. */
  earlier(token: string, command: EarlierCommand): void {
    if (this.untouched && this.trust.owns(token)) this.history.earlier(token, command)
  }

  /**
   * TermPilot is typing a command at the current prompt (the pane is ready: its last mark is that
   * prompt's B): from now until its shell reports its end, only that shell's marks count for it,
   * and the end of a shell that carries it is `ShellGone` (MarkTrust.commandTyped; `recordOf` is
   * EarlierPrompt.ts's record of the prompt a shell drew last).
   */
  commandTyped(recordOf?: (pid: number, token: string) => { readonly seq: number } | null): void {
    this.trust.commandTyped(this.progress.promptId, recordOf)
  }

  /** The command `commandTyped` bound never reached the pane (tmux refused its keys): nothing is bound. */
  commandNotTyped(): void {
    this.trust.commandNotTyped()
  }

  /** Whether `tokens` is exactly the set already known (and nothing waits for a re-read). */
  hasTokens(tokens: ReadonlyArray<string>): boolean {
    return this.blocked === null && this.trust.sameTokens(tokens)
  }

  /** The pane's announced tokens (`@termpilot_tokens` entries), re-read; resumes a held stream. */
  setTokens(tokens: ReadonlyArray<string>): StreamStep {
    this.trust.learn(tokens)
    const held = this.blocked
    if (held === null) return nothing()
    this.blocked = null
    this.trust.checked(held.token)
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
    this.progress.print(text)
    this.history.print(text)
  }

  execute(code: number): void {
    this.progress.execute(code)
    this.history.execute(code)
  }

  csi(params: string, final: number, intermediates?: string): void {
    this.progress.csi(params, final)
    this.history.csi(params, final, intermediates)
  }

  escape(final: number, intermediates: string): void {
    this.history.escape(final, intermediates)
  }

  stringStart(kind: StringKind): void {
    this.progress.stringStart()
    this.history.stringStart(kind)
  }

  abandoned(kind: StringKind, reason: "too_long" | "timed_out", length: number): void {
    const why = reason === "timed_out" ? "was not ended within 5 s" : `ran past ${length} characters`
    this.trust.raiseDoubt(
      `its output opened an escape string (${kind}) that ${why}, so what it showed is uncertain`
    )
    this.progress.capture.note(unrenderedNote(kind, length))
    this.history.abandoned(kind)
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
    if (this.trust.needsTokens(payload)) {
      this.blocked = { payload, token: osc133Token(payload) }
      return true
    }
    this.admit(payload)
    return false
  }

  /** A mark MarkTrust lets count moves the prompt (after the end of a shell that carried ours, if it was one). */
  private admit(payload: string): void {
    const admitted = this.trust.admit(payload)
    if (admitted === null) return
    if (admitted.shellGone !== null)
      this.events.push(this.progress.shellGone(admitted.shellGone, admitted.mark))
    const event = this.progress.mark(admitted.mark)
    if (event !== null) this.events.push(event)
    if (admitted.shell !== null) {
      const { key, seq } = admitted.shell
      const { promptId } = this.progress
      const line = osc133Command(payload)
      this.history.counted(key, seq, admitted.mark, promptId, this.location?.path ?? null, Date.now(), line)
    }
  }
}
