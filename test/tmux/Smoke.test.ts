import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request, run, TmuxWorld, waitFor } from "../support/tmux/TmuxWorld.js"

describe("smoke", () => {
  const world = new TmuxWorld()
  beforeAll(async () => {})
  afterAll(() => world.close())
  it("lists and runs", async () => {
    const p0 = world.newSession("work")
    await world.waitShell(p0)
    const backend = await world.backend()
    const list = await run(backend.terminal.listSessions)
    console.log(list)
    const id = list[0]!.session_id
    world.tmux("send-keys", "-t", p0, "Enter")
    await waitFor("ready", async () =>
      (await run(backend.terminal.readiness(id))) === "ready" ? true : undefined
    )
    const runner = await world.runner(backend)
    const t0 = Date.now()
    const r = await run(runner.run(request(id, "echo hi; false")))
    console.log(Date.now() - t0, r)
    const r2 = await run(runner.run(request(id, "true")))
    console.log(r2)
    console.log(world.lines(p0))
    const snap = await run(backend.terminal.read(id, { maxLines: 10, maxChars: 1000 }))
    console.log(snap)
    expect(r.exit_code).toBe(1)
  })
})
