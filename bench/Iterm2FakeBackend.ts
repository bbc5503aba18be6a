/**
 * The protocol-level fake iTerm2 (test/fakes/iterm2: real bash sessions in PTYs behind the real
 * unix-socket WebSocket server) as a bench backend, run in the bench process; a spawned server
 * reaches it through HOME. It times each SendText and each command-end notification it sends.
 */
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { FakeIterm2Server } from "../test/fakes/iterm2/FakeIterm2Server.js"
import { FakeWorld } from "../test/fakes/iterm2/FakeWorld.js"
import { linkHome } from "../test/support/FakeIterm2Backend.js"
import type { BenchBackend, BenchWorld, CommandSpan, WorldOptions } from "./BackendTypes.js"
import { baseEnv } from "./Spawned.js"

const open = async (options: WorldOptions): Promise<BenchWorld> => {
  const world = new FakeWorld({ scrollback: options.scrollback, timeoutMs: 120_000 })
  const server = await FakeIterm2Server.start({ handler: world.handler, allowAll: true })
  const home = join(server.dir, "home")
  linkHome(server, home)

  const sentAt = new Map<string, number>()
  const spans = new Map<string, CommandSpan>()
  const record = world.ledger.record.bind(world.ledger)
  world.ledger.record = (entry) => {
    sentAt.set(entry.session, performance.now())
    record(entry)
  }
  const publish = world.subscriptions.publish.bind(world.subscriptions)
  world.subscriptions.publish = (type, notification, sessionId, mode) => {
    if (mode === "COMMAND_END" && sessionId !== undefined) {
      const sent = sentAt.get(sessionId)
      if (sent !== undefined) spans.set(sessionId, { sentAt: sent, endedAt: performance.now() })
      sentAt.delete(sessionId)
    }
    publish(type, notification, sessionId, mode)
  }

  const ids: Array<string> = []
  const first = await world.createWindow({ integration: true })
  ids.push(first.sessionId)
  for (let i = 1; i < options.sessions; i++) {
    const created =
      i % 4 === 0
        ? await world.createWindow({ integration: true })
        : await world.createTab(first.windowId!, { integration: true })
    ids.push(created.sessionId)
  }
  return {
    env: baseEnv(home),
    sessionIds: ids,
    runAsUser: (sessionId, command) => world.runAsUser(sessionId, command),
    lastCommandSpan: (sessionId) => spans.get(sessionId),
    close: async () => {
      await server.close()
      await world.dispose()
    }
  }
}

/**
 * Issue 17: list_sessions at 100 sessions ≤ 30 ms, read_terminal 200 of 100,000 lines ≤ 5 ms.
 * Issue 28: list_commands of 200 entries ≤ 20 ms: tmux's 10 ms for the entries' own work, plus
 * the prompts asked of iTerm2 (ListPrompts, then ~200 GetPrompt in batches of 100: 4 round trips),
 * which cost 3–5 ms per 100 prompts on the fake (the same list's time less tmux's, 2026-12-05).
 */
export const iterm2FakeBackend: BenchBackend = {
  name: "iTerm2 fake",
  targets: { list100Ms: 30, deepReadMs: 5, listCommands200Ms: 20 },
  open
}
