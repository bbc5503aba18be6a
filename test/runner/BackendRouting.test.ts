/**
 * Two backends behind one Terminal: listSessions merges what is there, every other call reaches
 * only the backend that owns the id's form (proved by each backend's own ledger), an absent
 * backend contributes nothing, a failing one hides nothing of the other.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Ref } from "effect"
import { type BackendPart, routedTerminal, routedTracker } from "../../src/layers/backends/Routing.js"
import { fail } from "../../src/services/Errors.js"
import { PromptTracker } from "../../src/services/PromptTracker.js"
import { Terminal } from "../../src/services/Terminal.js"
import { FakeTerminalDriver, FakeTerminalLayer } from "../fakes/FakeTerminal.js"

const TMUX_ID = "tmux:/tmp/t/default:42.1700000000:%3"
const ITERM_ID = "5A4E3A55-0D7E-4F7B-9A3B-3C1A2B3C4D5E"

const makePart = (name: BackendPart["name"], present: Ref.Ref<boolean>) =>
  Effect.gen(function* () {
    const ctx = yield* Layer.build(FakeTerminalLayer)
    const part: BackendPart = {
      name,
      owns: (id) => (name === "tmux") === id.startsWith("tmux:"),
      present: Ref.get(present),
      absence: fail(name === "tmux" ? "tmux_unavailable" : "iterm2_unavailable", `no ${name} here.`),
      terminal: Context.get(ctx, Terminal),
      tracker: Context.get(ctx, PromptTracker)
    }
    return { part, driver: Context.get(ctx, FakeTerminalDriver) }
  })

const twoBackends = Effect.gen(function* () {
  const itermHere = yield* Ref.make(true)
  const tmuxHere = yield* Ref.make(true)
  const iterm = yield* makePart("iterm2", itermHere)
  const tmux = yield* makePart("tmux", tmuxHere)
  yield* iterm.driver.addSession(ITERM_ID, { readiness: "ready", promptId: "p1" })
  yield* tmux.driver.addSession(TMUX_ID, { readiness: "ready", promptId: "1" })
  const parts = [iterm.part, tmux.part]
  return { terminal: routedTerminal(parts), tracker: routedTracker(parts), iterm, tmux, itermHere, tmuxHere }
})

describe("BackendRouting", () => {
  it.effect("lists the sessions of both backends", () =>
    Effect.gen(function* () {
      const { terminal } = yield* twoBackends
      const ids = (yield* terminal.listSessions).map((s) => s.session_id)
      expect(ids.sort()).toEqual([ITERM_ID, TMUX_ID].sort())
    })
  )

  it.effect("sends a tmux id to tmux only and an iTerm2 id to iTerm2 only", () =>
    Effect.gen(function* () {
      const { terminal, iterm, tmux } = yield* twoBackends
      yield* terminal.submit(TMUX_ID, "echo to-tmux")
      yield* terminal.submit(ITERM_ID, "echo to-iterm")
      expect((yield* tmux.driver.ledger).map((s) => s.command)).toEqual(["echo to-tmux"])
      expect((yield* iterm.driver.ledger).map((s) => s.command)).toEqual(["echo to-iterm"])
    })
  )

  it.effect(
    "never falls through: a tmux-form id unknown to tmux is session_not_found, nothing sent anywhere",
    () =>
      Effect.gen(function* () {
        const { terminal, iterm, tmux } = yield* twoBackends
        const error = yield* Effect.flip(terminal.submit("tmux:/tmp/t/default:42.1700000000:%9", "echo x"))
        expect(error.code).toBe("session_not_found")
        expect(yield* tmux.driver.ledger).toEqual([])
        expect(yield* iterm.driver.ledger).toEqual([])
      })
  )

  it.effect("an absent backend contributes nothing and no error", () =>
    Effect.gen(function* () {
      const { terminal, itermHere } = yield* twoBackends
      yield* Ref.set(itermHere, false)
      expect((yield* terminal.listSessions).map((s) => s.session_id)).toEqual([TMUX_ID])
    })
  )

  it.effect("no backend there at all: one error that says where each was looked for", () =>
    Effect.gen(function* () {
      const { terminal, itermHere, tmuxHere } = yield* twoBackends
      yield* Ref.set(itermHere, false)
      yield* Ref.set(tmuxHere, false)
      const error = yield* Effect.flip(terminal.listSessions)
      expect(error.code).toBe("iterm2_unavailable")
      expect(error.message).toContain("no iterm2 here.")
      expect(error.message).toContain("no tmux here.")
    })
  )

  it.effect("a failing backend hides nothing of the other; all failing is the first one's error", () =>
    Effect.gen(function* () {
      const { iterm, tmux } = yield* twoBackends
      const broken = (part: BackendPart, message: string): BackendPart => ({
        ...part,
        terminal: { ...part.terminal, listSessions: Effect.fail(fail(part.absence.code, message)) }
      })
      const oneDown = routedTerminal([broken(iterm.part, "iterm down"), tmux.part])
      expect((yield* oneDown.listSessions).map((s) => s.session_id)).toEqual([TMUX_ID])
      const allDown = routedTerminal([broken(iterm.part, "iterm down"), broken(tmux.part, "tmux down")])
      expect((yield* Effect.flip(allDown.listSessions)).message).toBe("iterm down")
    })
  )

  it.effect("the current session comes from the first backend that has one", () =>
    Effect.gen(function* () {
      const { terminal, iterm } = yield* twoBackends
      expect((yield* terminal.currentSession).session_id).toBe(ITERM_ID)
      yield* iterm.driver.closeSession(ITERM_ID)
      expect((yield* terminal.currentSession).session_id).toBe(TMUX_ID)
    })
  )

  it.effect("watch goes to the owning backend", () =>
    Effect.gen(function* () {
      const { tracker, tmux, iterm } = yield* twoBackends
      yield* tracker.watch(TMUX_ID)
      expect(yield* tmux.driver.watchers(TMUX_ID)).toBe(1)
      expect(yield* iterm.driver.watchers(ITERM_ID)).toBe(0)
    })
  )
})
