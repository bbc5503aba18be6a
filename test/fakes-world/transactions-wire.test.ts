/**
 * An API transaction over the wire stops the fake world's clock, as iTerm2's does: what the shell
 * prints while our transaction is open reaches the screen only after it ends.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Iterm2Connection } from "../../src/services/Iterm2Connection.js"
import { FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import { FakeWorld } from "../fakes/iterm2/FakeWorld.js"
import { liveLayer, settingsFor } from "../iterm2/helpers.js"

describe("transactions over the wire", () => {
  let world: FakeWorld
  let server: FakeIterm2Server
  let sessionId: string

  beforeAll(async () => {
    world = new FakeWorld({ cols: 80, rows: 20 })
    sessionId = (await world.createWindow()).sessionId
    server = await FakeIterm2Server.start({ handler: world.handler, allowAll: true })
  })
  afterAll(async () => {
    await server.close()
    await world.dispose()
  })

  it("holds shell output from begin to end", async () => {
    const screenHas = (text: string) => world.screenText(sessionId).includes(text)
    const program = Effect.gen(function* () {
      const iterm2 = yield* Iterm2Connection
      const during = yield* iterm2.transaction(
        Effect.gen(function* () {
          yield* Effect.sync(() => world.type(sessionId, "echo frozen-$((6*7))\r"))
          yield* Effect.sleep("400 millis")
          return screenHas("frozen-42")
        })
      )
      return during
    })
    const heldDuring = await Effect.runPromise(
      Effect.provide(program, liveLayer(settingsFor(server.socketPath, server.dir)))
    )
    expect(heldDuring).toBe(false)
    await world.waitFor(sessionId, () => screenHas("frozen-42"))
    expect(screenHas("frozen-42")).toBe(true)
  })
})
