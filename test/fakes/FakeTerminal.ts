/**
 * FakeTerminal — an in-memory Terminal + PromptTracker backend with a driver (FakeTerminalDriver)
 * for tests above the backend: sessions with readiness and a current prompt, a ledger of every
 * submit that really "sent", scripted prompt events, per-prompt command output and injected faults.
 * `submit` honours readiness as the real backend must: refused means nothing reaches the ledger;
 * `interrupt` checks the command typed at the current prompt as the real backends must (running →
 * one ETX in the interrupt ledger; ended or another prompt → "ended"; typed only → "not_started"),
 * unless a script says otherwise.
 */
import { Context, Effect, Layer, Option, Queue, Ref, Stream, SubscriptionRef } from "effect"
import { type ErrorCode, fail, type SendError } from "../../src/services/Errors.js"
import { type PromptEvent, PromptTracker } from "../../src/services/PromptTracker.js"
import {
  type InterruptCheck,
  labelsOfSession,
  type ReadBounds,
  type Readiness,
  Terminal
} from "../../src/services/Terminal.js"
import {
  bounded,
  type FakeSession,
  follow,
  info,
  interruptVerdict,
  linesOf,
  notReadyMessage
} from "./FakeSession.js"

export interface SentCommand {
  readonly sessionId: string
  readonly command: string
  readonly promptId: string | null
}

export interface OutputRequest {
  readonly sessionId: string
  readonly promptId: string
  readonly bounds: ReadBounds
}

export interface SentInterrupt {
  readonly sessionId: string
  readonly promptId: string
}

export type FaultyMethod =
  | "submit"
  | "watch"
  | "commandOutput"
  | "readiness"
  | "read"
  | "getSession"
  | "interrupt"
  | "outputLineCount"

export interface Fault {
  /** A SendOutcomeUnknown only for the methods that send (submit, interrupt). */
  readonly error: SendError
  /** For `submit`/`interrupt`: record the send in its ledger first, then fail (sent, reply lost). */
  readonly afterSend?: boolean
}

/** How the next `interrupt` of a session behaves, instead of (or around) the state-derived check. */
export interface InterruptScript {
  /** The check's verdict regardless of the session's state ("sent" records one ETX). */
  readonly verdict?: InterruptCheck
  /** Runs, interruptibly, before the check (a backend that is slow or hung before sending). */
  readonly beforeCheck?: Effect.Effect<void>
  /** Runs, uninterruptibly, after the ETX is recorded (waiting for the send's reply). */
  readonly afterSend?: Effect.Effect<void>
  /** Published right after the ETX is recorded (the shell's reaction, or a racing end). */
  readonly events?: ReadonlyArray<PromptEvent>
}

export interface SessionSetup {
  readonly readiness?: Readiness
  /** The prompt the next command will be typed at; null = the backend gives no prompt ids. */
  readonly promptId?: string | null
  readonly screen?: string
}

export class FakeTerminalDriver extends Context.Service<
  FakeTerminalDriver,
  {
    readonly addSession: (sessionId: string, setup?: SessionSetup) => Effect.Effect<void>
    readonly setReadiness: (sessionId: string, readiness: Readiness) => Effect.Effect<void>
    readonly setPromptId: (sessionId: string, promptId: string | null) => Effect.Effect<void>
    /** Every command that was actually typed, in order. */
    readonly ledger: Effect.Effect<ReadonlyArray<SentCommand>>
    /** Every interrupt (ETX) that was actually sent, in order. */
    readonly interrupts: Effect.Effect<ReadonlyArray<SentInterrupt>>
    /** Script the next `interrupt` of the session (see InterruptScript). */
    readonly scriptInterrupt: (sessionId: string, script: InterruptScript) => Effect.Effect<void>
    /** Wait (event-driven, no polling) until at least `count` commands were sent; the ledger then. */
    readonly awaitSent: (count: number) => Effect.Effect<ReadonlyArray<SentCommand>>
    /** Publish one event to the session's current watchers. */
    readonly emit: (sessionId: string, event: PromptEvent) => Effect.Effect<void>
    /** Events published inside the next successful submit, right after the text is sent. */
    readonly emitOnSubmit: (sessionId: string, events: ReadonlyArray<PromptEvent>) => Effect.Effect<void>
    /**
     * The full output of the command typed at `promptId` (so far, while it runs); reads return its
     * bounded tail, outputLineCount its line count.
     */
    readonly setOutput: (sessionId: string, promptId: string, output: string) => Effect.Effect<void>
    /** Make the next call of `method` fail with `fault.error`. */
    readonly failNext: (method: FaultyMethod, fault: Fault) => Effect.Effect<void>
    /** Remove the session and tell its watchers it ended. */
    readonly closeSession: (sessionId: string) => Effect.Effect<void>
    /** The backend connection dropped: every watcher gets a Lost event (iTerm2's code by default). */
    readonly loseConnection: (message: string, code?: ErrorCode) => Effect.Effect<void>
    /** Open PromptTracker subscriptions on the session. */
    readonly watchers: (sessionId: string) => Effect.Effect<number>
    readonly outputRequests: Effect.Effect<ReadonlyArray<OutputRequest>>
  }
>()("test/FakeTerminalDriver") {}

const make = Effect.gen(function* () {
  const sessions = yield* Ref.make<ReadonlyMap<string, FakeSession>>(new Map())
  const ledger = yield* SubscriptionRef.make<ReadonlyArray<SentCommand>>([])
  const interrupts = yield* Ref.make<ReadonlyArray<SentInterrupt>>([])
  const scripts = yield* Ref.make<ReadonlyMap<string, InterruptScript>>(new Map())
  const outputs = yield* Ref.make<ReadonlyMap<string, string>>(new Map())
  const outputRequests = yield* Ref.make<ReadonlyArray<OutputRequest>>([])
  const faults = yield* Ref.make<ReadonlyMap<FaultyMethod, Fault>>(new Map())

  const update = (sessionId: string, f: (s: FakeSession) => FakeSession) =>
    Ref.update(sessions, (map) => {
      const session = map.get(sessionId)
      return session === undefined ? map : new Map(map).set(sessionId, f(session))
    })
  const lookup = (sessionId: string) =>
    Effect.flatMap(Ref.get(sessions), (map) => {
      const session = map.get(sessionId)
      return session === undefined
        ? Effect.fail(fail("session_not_found", `Session '${sessionId}' was not found.`))
        : Effect.succeed(session)
    })
  /** Fails with the injected fault for `method`, consuming it. */
  const takeFault = (method: FaultyMethod) =>
    Ref.modify(faults, (map): [Fault | undefined, ReadonlyMap<FaultyMethod, Fault>] => {
      const fault = map.get(method)
      if (fault === undefined) return [undefined, map]
      const next = new Map(map)
      next.delete(method)
      return [fault, next]
    })
  const faultFor = (method: FaultyMethod) =>
    Effect.flatMap(takeFault(method), (fault) =>
      fault === undefined
        ? Effect.void
        : fault.error._tag === "SendOutcomeUnknown"
          ? Effect.die(new Error(`${method} sends nothing: it cannot fail with SendOutcomeUnknown`))
          : Effect.fail(fault.error)
    )

  const publish = (sessionId: string, event: PromptEvent) =>
    Effect.gen(function* () {
      const session = (yield* Ref.get(sessions)).get(sessionId)
      if (session === undefined) return
      yield* update(sessionId, (s) => follow(s, event))
      for (const queue of session.hub) yield* Queue.offer(queue, event)
    })

  const submit = (sessionId: string, command: string) =>
    Effect.gen(function* () {
      const fault = yield* takeFault("submit")
      if (fault !== undefined && fault.afterSend !== true) return yield* Effect.fail(fault.error)
      const session = yield* lookup(sessionId)
      if (session.readiness === "shell_integration_required") {
        return yield* fail(
          "shell_integration_required",
          "Shell Integration is required before a command can be submitted safely."
        )
      }
      if (session.readiness !== "ready") {
        return yield* fail("session_not_ready", notReadyMessage(sessionId, session.readiness))
      }
      yield* SubscriptionRef.update(ledger, (l) => [...l, { sessionId, command, promptId: session.promptId }])
      yield* update(sessionId, (s) => ({ ...s, readiness: "busy", onSubmit: [], command: "typed" }))
      for (const event of session.onSubmit) yield* publish(sessionId, event)
      if (fault !== undefined) return yield* Effect.fail(fault.error)
      return { promptId: session.promptId }
    }).pipe(Effect.uninterruptible)

  const interrupt = (sessionId: string, promptId: string) =>
    Effect.gen(function* () {
      const script = yield* Ref.modify(
        scripts,
        (map): [InterruptScript, ReadonlyMap<string, InterruptScript>] => {
          const next = new Map(map)
          next.delete(sessionId)
          return [map.get(sessionId) ?? {}, next]
        }
      )
      yield* Effect.interruptible(script.beforeCheck ?? Effect.void)
      const fault = yield* takeFault("interrupt")
      if (fault !== undefined && fault.afterSend !== true) return yield* Effect.fail(fault.error)
      const session = yield* lookup(sessionId)
      const verdict = script.verdict ?? interruptVerdict(session, promptId)
      if (verdict !== "sent") return verdict
      yield* Ref.update(interrupts, (l) => [...l, { sessionId, promptId }])
      for (const event of script.events ?? []) yield* publish(sessionId, event)
      yield* script.afterSend ?? Effect.void
      if (fault !== undefined) return yield* Effect.fail(fault.error)
      return verdict
    }).pipe(Effect.uninterruptible)

  const outputOf = (sessionId: string, promptId: string) =>
    Effect.map(Ref.get(outputs), (map) => map.get(`${sessionId}\u0000${promptId}`))

  const terminal = Terminal.of({
    listSessions: Effect.map(Ref.get(sessions), (map) =>
      Array.from(map, ([id, s], i) => info(id, s, i === 0))
    ),
    currentSession: Effect.flatMap(Ref.get(sessions), (map) => {
      const first = map.entries().next()
      return first.done === true
        ? Effect.fail(fail("no_current_session", "iTerm2 has no current terminal session."))
        : Effect.succeed(info(first.value[0], first.value[1], true))
    }),
    getSession: (sessionId) =>
      Effect.andThen(
        faultFor("getSession"),
        Effect.map(lookup(sessionId), (s) => info(sessionId, s, false))
      ),
    sessionLabels: (sessionId) =>
      Effect.andThen(
        faultFor("getSession"),
        Effect.map(lookup(sessionId), (s) => labelsOfSession(info(sessionId, s, false)))
      ),
    read: (sessionId, bounds) =>
      Effect.andThen(
        faultFor("read"),
        Effect.map(lookup(sessionId), (s) => ({
          ...bounded(s.screen, bounds),
          readiness: s.readiness,
          cursor: { row: 0, anchor: null, rowDigest: null },
          cursorLost: false
        }))
      ),
    readiness: (sessionId) =>
      Effect.andThen(
        faultFor("readiness"),
        Effect.map(lookup(sessionId), (s) => s.readiness)
      ),
    submit,
    commandOutput: (sessionId, promptId, bounds) =>
      Effect.gen(function* () {
        yield* Ref.update(outputRequests, (r) => [...r, { sessionId, promptId, bounds }])
        yield* faultFor("commandOutput")
        yield* lookup(sessionId)
        const output = yield* outputOf(sessionId, promptId)
        if (output === undefined) {
          return yield* fail("output_unavailable", "The command output is unavailable.")
        }
        return { ...bounded(output, bounds), totalLines: linesOf(output).length }
      }),
    outputLineCount: (sessionId, promptId) =>
      Effect.gen(function* () {
        yield* faultFor("outputLineCount")
        yield* lookup(sessionId)
        const output = yield* outputOf(sessionId, promptId)
        return output === undefined ? null : linesOf(output).length
      }),
    interrupt,
    // This fake models commands only; send_keys is tested on the fake iTerm2 and on real tmux.
    sendKeys: (sessionId) =>
      Effect.andThen(
        lookup(sessionId),
        Effect.fail(fail("not_permitted", "The fake terminal takes no keys."))
      ),
    // This fake keeps no history of commands: list_commands is tested on the fake iTerm2 and on real tmux.
    listCommands: (sessionId) => Effect.as(lookup(sessionId), []),
    commandText: (sessionId, key) =>
      Effect.andThen(
        lookup(sessionId),
        Effect.fail(fail("invalid_request", `No command '${key}' is known in this session.`))
      ),
    // This fake has no person's terminal: asking there is tested on real tmux.
    askApproval: (sessionId) =>
      Effect.andThen(
        lookup(sessionId),
        Effect.fail(fail("approval_unavailable", "The fake terminal has no person's terminal to ask in."))
      )
  })

  const tracker = PromptTracker.of({
    watch: (sessionId) =>
      Effect.gen(function* () {
        yield* faultFor("watch")
        const session = yield* lookup(sessionId)
        if (session.readiness === "shell_integration_required") {
          return yield* fail(
            "shell_integration_required",
            "Shell Integration is required for this operation."
          )
        }
        yield* Effect.acquireRelease(
          update(sessionId, (s) => ({ ...s, watchers: s.watchers + 1 })),
          () => update(sessionId, (s) => ({ ...s, watchers: s.watchers - 1 }))
        )
        // Subscribed from now until the scope closes, then shut down (as a PubSub subscription).
        return yield* Effect.acquireRelease(
          Effect.tap(Queue.unbounded<PromptEvent>(), (queue) => Effect.sync(() => session.hub.add(queue))),
          (queue) =>
            Effect.andThen(
              Effect.sync(() => session.hub.delete(queue)),
              Queue.shutdown(queue)
            )
        )
      })
  })

  const driver = FakeTerminalDriver.of({
    addSession: (sessionId, setup = {}) =>
      Ref.update(sessions, (map) =>
        new Map(map).set(sessionId, {
          readiness: setup.readiness ?? "ready",
          promptId: setup.promptId === undefined ? `${sessionId}-prompt-1` : setup.promptId,
          screen: setup.screen ?? "",
          hub: new Set(),
          watchers: 0,
          onSubmit: [],
          command: "none"
        })
      ),
    setReadiness: (sessionId, readiness) => update(sessionId, (s) => ({ ...s, readiness })),
    setPromptId: (sessionId, promptId) => update(sessionId, (s) => ({ ...s, promptId })),
    ledger: SubscriptionRef.get(ledger),
    interrupts: Ref.get(interrupts),
    scriptInterrupt: (sessionId, script) => Ref.update(scripts, (map) => new Map(map).set(sessionId, script)),
    awaitSent: (count) =>
      SubscriptionRef.changes(ledger).pipe(
        Stream.filter((l) => l.length >= count),
        Stream.runHead,
        Effect.map(Option.getOrElse((): ReadonlyArray<SentCommand> => []))
      ),
    emit: publish,
    emitOnSubmit: (sessionId, events) => update(sessionId, (s) => ({ ...s, onSubmit: events })),
    setOutput: (sessionId, promptId, output) =>
      Ref.update(outputs, (map) => new Map(map).set(`${sessionId}\u0000${promptId}`, output)),
    failNext: (method, fault) => Ref.update(faults, (map) => new Map(map).set(method, fault)),
    closeSession: (sessionId) =>
      Effect.gen(function* () {
        yield* publish(sessionId, { _tag: "SessionEnded" })
        yield* Ref.update(sessions, (map) => {
          const next = new Map(map)
          next.delete(sessionId)
          return next
        })
      }),
    loseConnection: (message, code = "iterm2_unavailable") =>
      Effect.gen(function* () {
        for (const id of (yield* Ref.get(sessions)).keys())
          yield* publish(id, { _tag: "Lost", message, code })
      }),
    watchers: (sessionId) => Effect.map(Ref.get(sessions), (map) => map.get(sessionId)?.watchers ?? 0),
    outputRequests: Ref.get(outputRequests)
  })

  return Context.make(Terminal, terminal).pipe(
    Context.add(PromptTracker, tracker),
    Context.add(FakeTerminalDriver, driver)
  )
})

/** Terminal + PromptTracker backed by the fake world, plus its driver. No sessions until added. */
export const FakeTerminalLayer: Layer.Layer<Terminal | PromptTracker | FakeTerminalDriver> =
  Layer.effectContext(make)
