/**
 * Connection (ControlClient) — one `tmux -N -S <socket> -C attach-session -t <session> -f
 * ignore-size` process (or the same tmux command over ssh for another host's server:
 * Transport.ts): stdout read in bulk and framed (src/domain/tmux/ControlFraming.ts), one command per line with
 * replies matched in order (tmux answers a client's commands in order, one block per line),
 * pane output and notifications handed to hooks. It never resizes a window (`ignore-size`, no
 * `refresh-client -C`) and never selects anything. Closing stdin ends it; kill by pid as fallback.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { Effect } from "effect"
import { ControlFramer, isNotificationLine } from "../../../domain/tmux/ControlFraming.js"
import { fail, type TermPilotError } from "../../../services/Errors.js"
import type { TmuxTransport } from "./Transport.js"

export interface ControlReply {
  readonly ok: boolean
  readonly lines: ReadonlyArray<string>
}

/** What a client reports; each hook gets the client itself (output may arrive before `open` returns). */
export interface ControlHooks {
  readonly onOutput: (client: ControlClient, pane: number, bytes: Uint8Array) => void
  readonly onNotification: (client: ControlClient, name: string, args: string) => void
  readonly onClose: (client: ControlClient, reason: string) => void
}

export interface ControlTarget {
  /** The subprocess that carries tmux (local `tmux -S`, or `ssh … tmux`). */
  readonly transport: TmuxTransport
  /** Session to attach to (`$N`); null lets tmux pick one (used to discover a server). */
  readonly session: string | null
  readonly timeoutMs: number
}

type Callback = (error: string | null, reply: ControlReply | null) => void

interface Pending {
  readonly raw: boolean
  callback: Callback | null
}

/** How long a closing client may take to exit on its own before it is killed. */
const CLOSE_GRACE_MS = 500
const STDERR_KEPT = 2048

/** tmux must not see TermPilot's own $TMUX/$TMUX_PANE (it would refuse or misattribute nesting). */
export const childEnv = (): NodeJS.ProcessEnv => {
  const { TMUX: _tmux, TMUX_PANE: _pane, ...env } = process.env
  return env
}

export class ControlClient {
  private readonly child: ChildProcessWithoutNullStreams
  private readonly framer = new ControlFramer()
  private readonly pending: Array<Pending> = []
  private open = true
  /** The session (`$N`) this client is attached to, once known. */
  session: string | null
  private stderr = ""
  /** Bytes of every pane's `%output` read so far. */
  private outputBytes = 0
  private attached: Callback | null
  private readonly exited: Promise<void>

  constructor(
    readonly target: ControlTarget,
    private readonly hooks: ControlHooks,
    onAttached: Callback
  ) {
    this.attached = onAttached
    this.session = target.session
    // -N: never start a server (attach-session would start one, with TermPilot's environment).
    const args = ["-N", "-C", "attach-session", "-f", "ignore-size"]
    if (target.session !== null) args.push("-t", target.session)
    const { file, args: argv } = target.transport.command(args)
    this.child = spawn(file, [...argv], { stdio: ["pipe", "pipe", "pipe"], env: childEnv() })
    this.exited = new Promise((resolve) => this.child.once("close", () => resolve()))
    this.child.stdout.on("data", (chunk: Buffer) => this.data(chunk))
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_KEPT)
    })
    this.child.stdin.on("error", () => this.shut("its input closed"))
    this.child.once("error", (e) => this.shut(`it could not be started (${e.message})`))
    this.child.once("close", () => this.shut(this.stderr.trim() || "it exited"))
  }

  get isOpen(): boolean {
    return this.open
  }

  /** How many bytes of pane output (all panes) this client has read (PaneEntry.syncRows compares them). */
  get outputRead(): number {
    return this.outputBytes
  }

  /** Send lines in one write; `callback` gets each line's reply in order (or the failure). */
  request(lines: ReadonlyArray<string>, raw: boolean, callbacks: ReadonlyArray<Callback>): void {
    if (!this.open) {
      for (const cb of callbacks) cb("the tmux control client is closed", null)
      return
    }
    lines.forEach((_, i) => {
      this.pending.push({ raw, callback: callbacks[i] ?? null })
    })
    this.child.stdin.write(`${lines.join("\n")}\n`)
  }

  /**
   * The replies to `lines` (sent in one write), failing with `tmux_unavailable` after the timeout.
   * `onReply` sees each reply as it arrives, before any later `%output` is handled (what the
   * pane's state was right after tmux ran that line).
   */
  commands(
    lines: ReadonlyArray<string>,
    raw = false,
    onReply?: (index: number, reply: ControlReply) => void
  ): Effect.Effect<ReadonlyArray<ControlReply>, TermPilotError> {
    return Effect.callback<ReadonlyArray<ControlReply>, TermPilotError>((resume) => {
      const replies: Array<ControlReply> = []
      let received = 0
      const entries: Array<Pending> = []
      let done = false
      const finish = (result: Effect.Effect<ReadonlyArray<ControlReply>, TermPilotError>) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resume(result)
      }
      const timer = setTimeout(
        () =>
          finish(
            Effect.fail(
              fail(
                "tmux_unavailable",
                `The tmux server at ${this.target.transport.where} did not answer in time.`
              )
            )
          ),
        this.target.timeoutMs
      )
      const callbacks = lines.map(
        (_, i): Callback =>
          (error, reply) => {
            if (error !== null || reply === null) {
              finish(
                Effect.fail(
                  fail("tmux_unavailable", `tmux at ${this.target.transport.where}: ${error ?? "no reply"}`)
                )
              )
              return
            }
            replies[i] = reply
            onReply?.(i, reply)
            if (++received === lines.length) finish(Effect.succeed(replies))
          }
      )
      const before = this.pending.length
      this.request(lines, raw, callbacks)
      for (let i = before; i < this.pending.length; i++) entries.push(this.pending[i]!)
      return Effect.sync(() => {
        // Interrupted: keep the slots (the replies still come, in order) but drop the callbacks.
        done = true
        clearTimeout(timer)
        for (const entry of entries) entry.callback = null
      })
    })
  }

  /** One command's reply; a `%error` reply is a failure with tmux's message. */
  command(line: string, raw = false): Effect.Effect<ReadonlyArray<string>, TermPilotError> {
    return Effect.flatMap(this.commands([line], raw), ([reply]) =>
      reply!.ok
        ? Effect.succeed(reply!.lines)
        : Effect.fail(
            fail("tmux_unavailable", `tmux refused '${line.split(" ")[0]}': ${reply!.lines.join(" ")}`)
          )
    )
  }

  /** End the client: close its stdin, then kill it if it has not exited after a grace period. */
  close(): Promise<void> {
    this.shut("TermPilot closed it")
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve()
    this.child.stdin.end()
    const kill = setTimeout(() => this.child.kill("SIGKILL"), CLOSE_GRACE_MS)
    // Bounded: a process that ignores even SIGKILL does not hold TermPilot's shutdown.
    const giveUp = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS * 4).unref())
    return Promise.race([this.exited, giveUp]).finally(() => clearTimeout(kill))
  }

  private data(chunk: Buffer): void {
    for (const event of this.framer.feed(chunk)) {
      switch (event._tag) {
        case "Output":
          this.outputBytes += event.bytes.length
          this.hooks.onOutput(this, event.pane, event.bytes)
          break
        case "Notification":
          this.hooks.onNotification(this, event.name, event.args)
          break
        case "Exit":
          this.shut(event.reason === "" ? "the server closed it" : event.reason)
          break
        case "Reply": {
          if (!event.ours) {
            const attached = this.attached
            this.attached = null
            attached?.(event.ok ? null : event.lines.join(" ") || "attach failed", event)
            break
          }
          const entry = this.pending.shift()
          if (entry === undefined) break
          let lines = event.lines
          if (!entry.raw && lines.some(isNotificationLine)) {
            for (const line of lines.filter(isNotificationLine)) {
              const space = line.indexOf(" ")
              this.hooks.onNotification(
                this,
                space < 0 ? line : line.slice(0, space),
                space < 0 ? "" : line.slice(space + 1)
              )
            }
            lines = lines.filter((l) => !isNotificationLine(l))
          }
          entry.callback?.(null, { ok: event.ok, lines })
        }
      }
    }
  }

  private shut(reason: string): void {
    if (!this.open) return
    this.open = false
    const attached = this.attached
    this.attached = null
    attached?.(reason, null)
    for (const entry of this.pending.splice(0)) entry.callback?.(`the control client ended: ${reason}`, null)
    this.hooks.onClose(this, reason)
  }
}

/** Start a control client and wait until tmux confirmed the attach (or refused it). */
export const openControlClient = (
  target: ControlTarget,
  hooks: ControlHooks
): Effect.Effect<ControlClient, TermPilotError> =>
  Effect.callback<ControlClient, TermPilotError>((resume) => {
    let client: ControlClient | null = null
    const timer = setTimeout(() => {
      void client?.close()
      resume(
        Effect.fail(
          fail(
            "tmux_unavailable",
            `tmux at ${target.transport.where} did not accept a control client in time.`
          )
        )
      )
    }, target.timeoutMs)
    client = new ControlClient(target, hooks, (error) => {
      clearTimeout(timer)
      if (error === null) resume(Effect.succeed(client!))
      else {
        void client?.close()
        resume(Effect.fail(fail("tmux_unavailable", `tmux at ${target.transport.where}: ${error}`)))
      }
    })
  })
