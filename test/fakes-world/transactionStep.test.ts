/**
 * The fake iTerm2's test hook for races: a step run once inside the next transaction, after the
 * world's clock stopped — the shell goes on writing, but what it writes is held from iTerm2's view
 * until the transaction ends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FakeWorld } from "../fakes/iterm2/FakeWorld.js"
import { CollectingConnection, call } from "./harness.js"

describe("FakeTransactions.duringNextBegin", () => {
  let world: FakeWorld
  beforeAll(() => {
    world = new FakeWorld()
  })
  afterAll(async () => {
    await world.dispose()
  })

  it("runs the step once inside the next transaction, with the shell's output held until the end", async () => {
    const { sessionId } = await world.createWindow()
    const shell = world.shell(sessionId)
    const conn = new CollectingConnection()
    let steps = 0
    world.transactions.duringNextBegin(async () => {
      steps += 1
      world.type(sessionId, "echo inside-step\r")
      // The command ran and the shell drew its next prompt (OSC 133;B), all of it held.
      await shell.waitUntil(() => shell.heldOutput().includes("\x1b]133;B\x07"), 5_000, "the held prompt")
    })
    const onScreen = () => world.screenText(sessionId).split("\n").includes("inside-step")

    expect(
      (await call(world, { transaction_request: { begin: true } }, conn))?.transaction_response?.status
    ).toBe("OK")
    expect([steps, onScreen()]).toEqual([1, false])
    expect((await call(world, { transaction_request: {} }, conn))?.transaction_response?.status).toBe("OK")
    await world.waitFor(sessionId, () => onScreen())
    expect(shell.heldOutput()).toBe("")

    await call(world, { transaction_request: { begin: true } }, conn)
    await call(world, { transaction_request: {} }, conn)
    expect(steps).toBe(1)
  })
})
