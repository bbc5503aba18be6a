/**
 * RecordedBackend — the tmux backend under test (makeTmuxBackend) in process, over the recorded
 * TmuxWorld of this folder (every pane's input logged by `script -I`), for tests that must count
 * the exact bytes a pane received. `watch` subscribes to a pane's events (kept until close), `ready`
 * gets a pane to `ready` (Enter once, as the docs tell a person), `start` submits a command and
 * waits for its CommandStart, `etx` counts 0x03 bytes a pane received after a recorder mark.
 * `runner` puts the backend-independent CommandRunner (CommandRunnerLive's own constructor) on a
 * backend, `until` waits for a readiness, and `person` attaches a person's client in a real pty.
 */
import { Effect, Exit, Layer, Option, Queue, Scope } from "effect"
import * as pty from "node-pty"
import {
  makeTmuxBackend,
  type TmuxBackend,
  type TmuxSettings
} from "../../../src/layers/backends/tmux/Backend.js"
import { makeCommandRunner } from "../../../src/layers/runner/CommandRunnerLive.js"
import type { CommandRunner } from "../../../src/services/CommandRunner.js"
import { type PromptEvent, PromptTracker } from "../../../src/services/PromptTracker.js"
import { Terminal } from "../../../src/services/Terminal.js"
import { waitUntil } from "./Recorder.js"
import { type PaneOptions, TmuxWorld, type WorldPane } from "./TmuxWorld.js"

/** A run request with the tool's defaults (the runner tests' own). */
export { request } from "../../runner/support.js"

export const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)

/** The failure's code of an effect expected to fail. */
export const codeOf = <A>(effect: Effect.Effect<A, { readonly code: string }>): Promise<string> =>
  run(Effect.map(Effect.flip(effect), (e) => e.code))

/** One pane's events, in order, from the moment `watch` returned. */
export class Events {
  constructor(private readonly queue: Queue.Dequeue<PromptEvent>) {}

  /** The next event of kind `tag` (earlier ones of other kinds are skipped), within `timeoutMs`. */
  async next<T extends PromptEvent["_tag"]>(
    tag: T,
    timeoutMs = 10_000
  ): Promise<Extract<PromptEvent, { _tag: T }>> {
    const found = await run(
      Effect.gen({ self: this }, function* () {
        for (;;) {
          const event = yield* Queue.take(this.queue)
          if (event._tag === tag) return event as Extract<PromptEvent, { _tag: T }>
        }
      }).pipe(Effect.timeout(timeoutMs), Effect.option)
    )
    if (Option.isNone(found)) throw new Error(`no ${tag} event within ${timeoutMs} ms`)
    return found.value
  }

  /** Every event already queued, taken. */
  async drain(): Promise<ReadonlyArray<PromptEvent>> {
    return [...(await run(Queue.clear(this.queue)))]
  }
}

export class RecordedBackend {
  readonly world = TmuxWorld.create()
  private readonly scopes: Array<Scope.Closeable> = []
  private readonly people: Array<pty.IPty> = []
  backend!: TmuxBackend

  /** The world's first session `main` with one pane, then the backend over the world's socket. */
  async open(overrides: Partial<TmuxSettings> = {}): Promise<WorldPane> {
    const first = await this.world.newSession("main")
    this.backend = await this.extraBackend(overrides)
    return first
  }

  /** Another backend over the same socket (e.g. one that runs in a given pane), closed by `close`. */
  async extraBackend(overrides: Partial<TmuxSettings> = {}): Promise<TmuxBackend> {
    return (await this.scopedBackend(overrides)).backend
  }

  /** A backend with the scope it lives in (a test may close that scope itself; `close` does too). */
  async scopedBackend(
    overrides: Partial<TmuxSettings> = {}
  ): Promise<{ backend: TmuxBackend; scope: Scope.Closeable }> {
    const scope = await this.scope()
    const backend = await run(
      makeTmuxBackend({
        sockets: [this.world.socket],
        tmuxPath: "tmux",
        ownPane: null,
        commandTimeoutMs: 5_000,
        ...overrides
      }).pipe(Scope.provide(scope))
    )
    return { backend, scope }
  }

  /** A CommandRunner (CommandRunnerLive's own constructor) over `backend`, closed by `close`. */
  async runner(backend = this.backend): Promise<CommandRunner["Service"]> {
    const scope = await this.scope()
    const layer = Layer.merge(
      Layer.succeed(Terminal, backend.terminal),
      Layer.succeed(PromptTracker, backend.tracker)
    )
    return run(Effect.provide(makeCommandRunner(), layer).pipe(Scope.provide(scope)))
  }

  pane(options: PaneOptions = {}): Promise<WorldPane> {
    return this.world.newWindow("main", options)
  }

  async watch(id: string, backend = this.backend): Promise<Events> {
    const scope = await this.scope()
    return new Events(await run(backend.tracker.watch(id).pipe(Scope.provide(scope))))
  }

  /** The pane's session id (formed from tmux's own report), once `backend` lists it. */
  async listedId(pane: WorldPane, backend = this.backend): Promise<string> {
    const id = await pane.world.sessionId(pane)
    const listed = await run(backend.terminal.listSessions)
    if (!listed.some((s) => s.session_id === id)) throw new Error(`${pane.paneId} (${id}) is not listed`)
    return id
  }

  /** Waits until `backend` reports `readiness` for `id`. */
  async until(id: string, readiness: string, backend = this.backend): Promise<void> {
    await waitUntil(
      `${id} ${readiness}`,
      async () => (await run(backend.terminal.readiness(id))) === readiness
    )
  }

  /**
   * The pane's session id, once the backend reports it `ready`, and its events from before the
   * Enter that made it so; `promptId` is that prompt's id.
   */
  async ready(
    pane: WorldPane,
    backend = this.backend
  ): Promise<{ id: string; events: Events; promptId: string }> {
    const id = await this.listedId(pane, backend)
    const events = await this.watch(id, backend)
    await pane.world.press(pane, "Enter")
    const prompt = await events.next("Prompt")
    await waitUntil(`${id} ready`, async () => (await run(backend.terminal.readiness(id))) === "ready")
    return { id, events, promptId: prompt.promptId ?? "" }
  }

  /** Submit `command` at a ready pane and wait until it started; its prompt id. */
  async start(id: string, events: Events, command: string): Promise<string> {
    const { promptId } = await run(this.backend.terminal.submit(id, command))
    const started = await events.next("CommandStart")
    if (promptId === null || started.promptId !== promptId) throw new Error(`${command} did not start`)
    return promptId
  }

  /**
   * A person's client (a plain `tmux attach`) in a real pty of `cols`×`rows`, attached to `session`
   * (null: the session tmux itself picks) of `world`, once tmux lists it; killed by `close`.
   */
  async person(session: string | null, cols = 132, rows = 43, world = this.world): Promise<pty.IPty> {
    const clients = async () => (await world.tmux("list-clients", "-F", "#{client_control_mode}")).split("\n")
    const before = (await clients()).filter((mode) => mode === "0").length
    const target = session === null ? [] : ["-t", session]
    const person = pty.spawn("tmux", ["-S", world.socket, "-f", "/dev/null", "attach-session", ...target], {
      cols,
      rows,
      env: world.env(),
      name: "xterm-256color"
    })
    this.people.push(person)
    person.onData(() => undefined)
    await waitUntil(
      "the person's client",
      async () => (await clients()).filter((mode) => mode === "0").length > before
    )
    return person
  }

  async close(): Promise<void> {
    for (const scope of this.scopes.reverse()) await run(Scope.close(scope, Exit.void))
    for (const person of this.people) person.kill()
    await this.world.close()
  }

  private async scope(): Promise<Scope.Closeable> {
    const scope = await run(Scope.make())
    this.scopes.push(scope)
    return scope
  }
}

/** How many ETX (0x03) bytes `pane` received since the recorder mark `mark`. */
export const etx = (pane: WorldPane, mark: number): number =>
  [...pane.files.recorder.since(mark)].filter((b) => b === 0x03).length
