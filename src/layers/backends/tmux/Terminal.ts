/**
 * Terminal — the Terminal service over tmux: the merged pane inventory of every live server,
 * bounded `capture-pane` reads, readiness from pane flags plus the mark stream, the fail-closed
 * submit (re-check over the pane's own control client, whose reply is ordered after every byte
 * the pane wrote before it, then `send-keys -H` + Enter in one write), and commands' own output
 * as the control client saw it between their C and D marks (so far, while they run). Reads with
 * cursors are Read.ts, the interrupt Interrupt.ts, send_keys SendKeys.ts, the shared pane
 * steps Readiness.ts.
 */
import { Effect, Result } from "effect"
import { boundTail } from "../../../domain/TextBounds.js"
import { type FlagRow, flagsOf, PANE_FIELDS, parseFields } from "../../../domain/tmux/PaneFormat.js"
import { submitLines } from "../../../domain/tmux/SendEncoding.js"
import { refusalReason } from "../../../domain/tmux/TmuxReadiness.js"
import { fail, sessionNotFound, type TermPilotError } from "../../../services/Errors.js"
import type {
  BoundedText,
  CommandOutput,
  ReadBounds,
  Readiness,
  SessionInfo,
  SessionListing,
  Terminal,
  UnavailableSource
} from "../../../services/Terminal.js"
import { makeTmuxApproval } from "./Approval.js"
import { claimPane, releasePane } from "./Claims.js"
import { type OwnPane, refuseClientHost, refuseOwnPane } from "./ClientPane.js"
import { makeTmuxCommands } from "./Commands.js"
import { mayProveEarlier, proveEarlierPrompt, readPromptRecord } from "./EarlierPrompt.js"
import { TerminalTable } from "./Foreground.js"
import { makeTmuxInterrupt } from "./Interrupt.js"
import {
  type HumanFocus,
  humanFocus,
  isFocused,
  LIST_CLIENTS_LINE,
  labelLine,
  labelsOf,
  listServer,
  noteTokens,
  paneLine,
  toSessionInfo
} from "./Inventory.js"
import { entryEvidence, type PaneEntry } from "./PaneTable.js"
import { makeTmuxRead } from "./Read.js"
import { flagsOfPane, mayHaveReached, paneGoneOr, readinessOf, typingRefusal } from "./Readiness.js"
import type { TmuxRegistry } from "./Registry.js"
import { makeTmuxKeys } from "./SendKeys.js"
import type { TmuxServer } from "./Server.js"

export type { OwnPane }

/** The error a pane that is not `ready` refuses a command with; nothing was sent. */
export const notReady = (
  sessionId: string,
  row: FlagRow,
  readiness: Readiness,
  entry?: PaneEntry
): TermPilotError => {
  const flags = flagsOf(row)
  const facts = entry?.stream.facts
  const evidence = entry === undefined ? undefined : entryEvidence(entry, flags)
  return fail(
    readiness === "shell_integration_required" ? "shell_integration_required" : "session_not_ready",
    `Session '${sessionId}' cannot take a command: ${refusalReason(flags, readiness, facts, evidence)}. Nothing was sent.`
  )
}

export const makeTmuxTerminal = (registry: TmuxRegistry, ownPane: OwnPane | null): Terminal["Service"] => {
  /** The server's focus as one global choice: the most recently active human client of any server. */
  const focusOf = (found: ReadonlyArray<{ server: TmuxServer; focus: HumanFocus | null }>) => {
    let best: { server: TmuxServer; focus: HumanFocus } | null = null
    for (const f of found) {
      if (f.focus !== null && (best === null || f.focus.activity > best.focus.activity)) {
        best = { server: f.server, focus: f.focus }
      }
    }
    return best
  }

  const listing = Effect.gen(function* () {
    const { servers, unavailable } = yield* registry.survey
    const listed = yield* Effect.forEach(
      servers,
      (server) =>
        listServer(server).pipe(
          Effect.map((l) => ({ server, ...l })),
          Effect.result
        ),
      { concurrency: "unbounded" }
    )
    const found = listed.flatMap((o) => (Result.isSuccess(o) ? [o.success] : []))
    // A host's server that answered the survey but not the listing (its link dropped, it hangs).
    const failedHosts = listed.flatMap((o, i) => {
      const host = servers[i]?.transport.host
      return Result.isFailure(o) && host != null ? [{ host: host.spec, error: o.failure }] : []
    })
    const current = focusOf(found)
    // Only panes whose stream has nothing of its own yet can have a prompt drawn before watching.
    const unproved = found.flatMap(({ server, rows }) =>
      rows
        .filter((row) => mayProveEarlier(server.panes.get(Number(row.pane_id.slice(1)))))
        .map((row) => ({ server, row }))
    )
    const terminals = new TerminalTable()
    yield* Effect.forEach(
      unproved,
      ({ server, row }) => proveEarlierPrompt(server, Number(row.pane_id.slice(1)), row, terminals),
      { concurrency: "unbounded", discard: true }
    )
    const sessions = found.flatMap(({ server, rows }) =>
      rows.map((row) => {
        const pane = Number(row.pane_id.slice(1))
        noteTokens(server, pane, row)
        const focused = current !== null && current.server === server && isFocused(row, current.focus)
        return toSessionInfo(server, row, pane, focused, ownPane)
      })
    )
    return {
      sessions,
      unavailable: [...unavailable, ...failedHosts].map(
        (u): UnavailableSource => ({
          backend: "tmux",
          host: u.host,
          error_code: u.error.code,
          message: u.error.message
        })
      )
    } satisfies SessionListing
  }).pipe(Effect.withSpan("TmuxTerminal.listSessions"))

  const listSessions = Effect.map(listing, (l) => l.sessions)

  const currentSession = Effect.flatMap(listSessions, (all) => {
    const current = all.find((s) => s.is_current)
    return current === undefined
      ? Effect.fail(
          fail("no_current_session", "No person's tmux client is attached, so no tmux pane is current.")
        )
      : Effect.succeed(current)
  })

  const getSession = (sessionId: string): Effect.Effect<SessionInfo, TermPilotError> =>
    Effect.gen(function* () {
      const { server, pane } = yield* registry.resolve(sessionId)
      const client = yield* server.clientFor(pane)
      const [described, clients] = yield* client.commands([paneLine(pane), LIST_CLIENTS_LINE])
      const row = described?.ok === true ? parseFields(PANE_FIELDS, described.lines[0] ?? "") : null
      if (row === null || row.pane_id !== `%${pane}`) return yield* sessionNotFound(sessionId)
      yield* proveEarlierPrompt(server, pane, row)
      // is_current compares with every live server's human clients.
      const others = yield* Effect.forEach(
        (yield* registry.live).filter((s) => s !== server),
        (s) =>
          Effect.flatMap(s.primary(), (c) => c.command(LIST_CLIENTS_LINE)).pipe(
            Effect.map((lines) => ({ server: s, focus: humanFocus(lines) })),
            Effect.orElseSucceed(() => ({ server: s, focus: null }))
          ),
        { concurrency: "unbounded" }
      )
      const mine = { server, focus: clients?.ok === true ? humanFocus(clients.lines) : null }
      const current = focusOf([mine, ...others])
      return toSessionInfo(
        server,
        row,
        pane,
        current?.server === server && isFocused(row, current.focus),
        ownPane
      )
    })

  /** One round trip for the titles alone, over the pane's own client (as getSession, without its checks). */
  const sessionLabels = (sessionId: string) =>
    Effect.gen(function* () {
      const { server, pane } = yield* registry.resolve(sessionId)
      const client = yield* server.clientFor(pane)
      const [reply] = yield* client.commands([labelLine(pane)])
      const labels = reply?.ok === true ? labelsOf(pane, reply.lines[0] ?? "") : null
      return labels === null ? yield* sessionNotFound(sessionId) : labels
    })

  const readiness = (sessionId: string) =>
    Effect.gen(function* () {
      const resolved = yield* registry.resolve(sessionId)
      const row = yield* flagsOfPane(resolved, sessionId)
      yield* proveEarlierPrompt(resolved.server, resolved.pane, row)
      return readinessOf(resolved.server, resolved.pane, row)
    })

  const read = makeTmuxRead(registry)

  /**
   * The checks before the send may be cut short by the tool call's deadline (they are
   * interruptible); from the send on nothing is abandoned (see the Terminal contract).
   */
  const submit = (sessionId: string, command: string) =>
    Effect.gen(function* () {
      const resolved = yield* Effect.interruptible(registry.resolve(sessionId))
      const { server, pane } = resolved
      yield* refuseOwnPane(ownPane, resolved.id, sessionId, "a command")
      const entry = server.panes.entry(pane)
      if (mayProveEarlier(entry)) {
        // A prompt drawn before TermPilot watched: proved (or not) before the checks below, which
        // read the flags again over the client that then streams the pane. Asked as the listing
        // and readiness ask it (its tokens may not have been read yet), so the first call of any
        // tool gives the same verdict.
        const first = yield* Effect.interruptible(flagsOfPane(resolved, sessionId))
        yield* Effect.interruptible(proveEarlierPrompt(server, pane, first))
      }
      const client = yield* Effect.interruptible(server.clientFor(pane))
      // Claimed across TermPilot processes first (Claims.ts); the flags come in the same write,
      // after the claim, and after every byte the pane wrote before it: the stream state is current.
      const { row } = yield* Effect.interruptible(
        paneGoneOr(server, pane, sessionId)(claimPane(client, pane, entry.claim, sessionId))
      )
      return yield* Effect.gen(function* () {
        yield* refuseClientHost(server, row, sessionId, "a command")
        // Only the client that streams the pane orders its reply after the pane's bytes.
        const verdict = entry.owner === client ? readinessOf(server, pane, row) : "unknown"
        if (verdict !== "ready") return yield* notReady(sessionId, row, verdict, entry)
        const promptId = entry.stream.facts.promptId
        // Bound to this shell and prompt: other shells' marks cannot end it (PaneStream.commandTyped).
        // Another host's shells' records are not on this machine. The claim is the command's now:
        // released when its prompt comes back (PaneEntry.commandTyped).
        entry.commandTyped(server.remote ? undefined : readPromptRecord)
        // Every event offered so far came before these keys: the pane's reply to them, and so any
        // output they cause, is read only after this write.
        const after = entry.eventSeq
        const replies = yield* client
          .commands(submitLines(pane, command))
          .pipe(Effect.mapError(mayHaveReached(sessionId, "command")))
        const refused = typingRefusal(replies, sessionId, "the command (or Enter)")
        if (refused !== undefined) {
          // The first line refused: nothing reached the pane, so no command of ours is on its way.
          if (refused.cause === undefined) entry.commandNotTyped()
          return yield* refused
        }
        return { promptId, after }
      }).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            if (!entry.claim.commandHold) releasePane(client, pane, entry.claim)
          })
        )
      )
    }).pipe(Effect.withSpan("TmuxTerminal.submit"))

  /** A finished command's kept output, or the output so far of one still being captured. */
  const commandOutput = (sessionId: string, promptId: string, bounds: ReadBounds) =>
    Effect.gen(function* () {
      const { server, pane } = yield* registry.resolve(sessionId)
      const stream = server.panes.get(pane)?.stream
      const rendered = stream?.output(promptId) ?? stream?.outputSoFar(promptId)
      if (rendered === undefined) {
        return yield* fail(
          "output_unavailable",
          `TermPilot has no output of prompt ${promptId} in session '${sessionId}' (it was not watching, or it is too old).`
        )
      }
      const text: BoundedText = boundTail(rendered.lines, bounds)
      // The stream counts every line the command wrote, also those its bounded capture dropped.
      const totalLines = stream?.lineCount(promptId) ?? null
      return { ...text, truncated: text.truncated || rendered.truncated, totalLines } satisfies CommandOutput
    })

  /** From the pane's own stream, in memory: nothing is read from tmux. */
  const outputLineCount = (sessionId: string, promptId: string) =>
    Effect.map(
      registry.resolve(sessionId),
      ({ server, pane }) => server.panes.get(pane)?.stream.lineCount(promptId) ?? null
    )

  const interrupt = makeTmuxInterrupt(registry, ownPane)

  return {
    listSessions,
    listing,
    currentSession,
    getSession,
    sessionLabels,
    read,
    readiness,
    submit,
    commandOutput,
    outputLineCount,
    interrupt,
    sendKeys: makeTmuxKeys(registry, ownPane),
    askApproval: makeTmuxApproval(registry),
    ...makeTmuxCommands(registry)
  }
}
