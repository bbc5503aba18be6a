/**
 * The iTerm2 backend's own layers (Iterm2ConnectionLive → Iterm2TerminalLive) over the real socket
 * of the protocol-level fake iTerm2 (real bash sessions), without the MCP server on top; plus an
 * independent observer connection on the fake's handler that records prompt notifications.
 */
import { Cause, type Effect, Exit, Layer, ManagedRuntime } from "effect"
import { expect } from "vitest"
import type { Notification } from "../../src/generated/iterm2/Iterm2Messages.js"
import { Iterm2ConnectionLive } from "../../src/layers/backends/iterm2/Connection.js"
import { Iterm2TerminalLive } from "../../src/layers/backends/iterm2/Terminal.js"
import type { Iterm2Settings } from "../../src/services/AppConfig.js"
import type { SendError } from "../../src/services/Errors.js"
import type { Terminal } from "../../src/services/Terminal.js"
import { FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import { FakeWorld, type FakeWorldOptions } from "../fakes/iterm2/FakeWorld.js"
import { CollectingConnection, call } from "../fakes-world/harness.js"
import { appConfigFor } from "../support/AppConfigFixture.js"
import { fakeSettings } from "../support/FakeIterm2Backend.js"

export interface BackendRig {
  readonly world: FakeWorld
  readonly server: FakeIterm2Server
  /** Runs an effect on the backend's Terminal. */
  readonly run: <A>(effect: Effect.Effect<A, SendError, Terminal>) => Promise<A>
  /** Runs it and returns its typed failure (fails the test when it succeeds or dies). */
  readonly failure: <A>(effect: Effect.Effect<A, SendError, Terminal>) => Promise<SendError>
  /** Subscribes the observer to `sessionId`'s prompt events (all three modes). */
  readonly observe: (sessionId: string) => Promise<void>
  /** The next CommandEnd of `promptId` the observer saw (bounded wait). */
  readonly commandEnd: (sessionId: string, promptId: string) => Promise<number>
  readonly close: () => Promise<void>
}

export const openBackendRig = async (
  options: { readonly world?: FakeWorldOptions; readonly settings?: Partial<Iterm2Settings> } = {}
): Promise<BackendRig> => {
  const world = new FakeWorld(options.world)
  const server = await FakeIterm2Server.start({ handler: world.handler, allowAll: true })
  const config = appConfigFor(fakeSettings(server.socketPath, options.settings))
  const runtime = ManagedRuntime.make(
    Iterm2TerminalLive.pipe(Layer.provide(Iterm2ConnectionLive), Layer.provide(config))
  )
  const observer = new CollectingConnection()
  const isEnd = (sessionId: string, promptId: string) => (n: Notification) =>
    n.prompt_notification?.session === sessionId &&
    n.prompt_notification.unique_prompt_id === promptId &&
    n.prompt_notification.command_end !== undefined
  return {
    world,
    server,
    run: (effect) => runtime.runPromise(effect),
    failure: async (effect) => {
      const exit = await runtime.runPromiseExit(effect)
      const reasons = Exit.isFailure(exit) ? exit.cause.reasons : []
      const only = reasons.length === 1 ? reasons[0] : undefined
      if (only === undefined || !Cause.isFailReason(only)) {
        throw new Error(`expected a typed failure, got ${String(exit)}`)
      }
      return only.error
    },
    observe: async (sessionId) => {
      const request = {
        session: sessionId,
        subscribe: true,
        notification_type: "NOTIFY_ON_PROMPT" as const,
        prompt_monitor_request: {
          modes: ["PROMPT" as const, "COMMAND_START" as const, "COMMAND_END" as const]
        }
      }
      const reply = await call(world, { notification_request: request }, observer)
      expect(reply?.notification_response?.status).toBe("OK")
    },
    commandEnd: async (sessionId, promptId) => {
      const end = await observer.waitFor(isEnd(sessionId, promptId))
      return end.prompt_notification?.command_end?.status ?? -1
    },
    close: async () => {
      observer.close()
      await runtime.dispose()
      await server.close()
      await world.dispose()
    }
  }
}
