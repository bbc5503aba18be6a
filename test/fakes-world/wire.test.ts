/**
 * The fake iTerm2 world behind the fake iTerm2 transport, spoken to by the real client
 * (Iterm2ConnectionLive over protobuf): the runcommand sequence of iterm2-protocol.md §6.
 */
import { Effect, Queue } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Iterm2Connection } from "../../src/layers/backends/iterm2/ConnectionService.js"
import { FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import { FakeWorld } from "../fakes/iterm2/FakeWorld.js"
import { liveLayer, settingsFor } from "../iterm2/helpers.js"
import { joinLines } from "./harness.js"

describe("fake iTerm2 world over the wire", () => {
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

  it("runs a command and reads exactly its output, as Python's runcommand example does", async () => {
    const program = Effect.scoped(
      Effect.gen(function* () {
        const iterm2 = yield* Iterm2Connection
        const events = yield* iterm2.events
        const listed = yield* iterm2.call({ list_sessions_request: {} })
        const subscribed = yield* iterm2.call({
          notification_request: {
            session: sessionId,
            subscribe: true,
            notification_type: "NOTIFY_ON_PROMPT",
            prompt_monitor_request: { modes: ["PROMPT", "COMMAND_START", "COMMAND_END"] }
          }
        })
        const prompt = yield* iterm2.call({ get_prompt_request: { session: sessionId } })
        const promptId = prompt.get_prompt_response!.unique_prompt_id!
        yield* iterm2.call({ send_text_request: { session: sessionId, text: "printf 'a\\nb\\n'; false\r" } })
        let status: number | undefined
        while (status === undefined) {
          const event = yield* Queue.take(events)
          if (event._tag === "Notification")
            status = event.notification.prompt_notification?.command_end?.status
        }
        const done = yield* iterm2.call({
          get_prompt_request: { session: sessionId, unique_prompt_id: promptId }
        })
        const range = done.get_prompt_response!.output_range!
        const buffer = yield* iterm2.call({
          get_buffer_request: {
            session: sessionId,
            line_range: {
              windowed_coord_range: {
                coord_range: { start: { x: 0, y: range.start!.y! }, end: { x: 0, y: range.end!.y! } },
                columns: { location: 0, length: 0 }
              }
            }
          }
        })
        return { listed, subscribed, status, done, buffer }
      })
    ).pipe(
      Effect.provide(liveLayer(settingsFor(server.socketPath, server.dir))),
      Effect.timeout("15 seconds")
    )
    const r = await Effect.runPromise(program)
    const tab = r.listed.list_sessions_response!.windows![0]!.tabs![0]!
    expect(tab.root!.links![0]!.session!.unique_identifier).toBe(sessionId)
    expect(tab.tmux_window_id).toBe("-1")
    expect(r.subscribed.notification_response?.status ?? "OK").toBe("OK")
    expect(r.status).toBe(1)
    expect(r.done.get_prompt_response!.prompt_state).toBe("FINISHED")
    expect(r.done.get_prompt_response!.exit_status).toBe(1)
    expect(joinLines(r.buffer.get_buffer_response!)).toBe("a\nb\n")
    expect(world.ledger.forSession(sessionId).map((e) => e.text)).toEqual(["printf 'a\\nb\\n'; false\r"])
  })

  it("holds shell output while an API transaction is open, as iTerm2 stops its clock", async () => {
    const screenHas = (text: string) => world.screenText(sessionId).includes(text)
    const heldDuring = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Iterm2Connection, (iterm2) =>
          iterm2.transaction(
            Effect.gen(function* () {
              yield* Effect.sync(() => world.type(sessionId, "echo frozen-$((6*7))\r"))
              yield* Effect.sleep("400 millis")
              return screenHas("frozen-42")
            })
          )
        ),
        liveLayer(settingsFor(server.socketPath, server.dir))
      )
    )
    expect(heldDuring).toBe(false)
    await world.waitFor(sessionId, () => screenHas("frozen-42"))
  })
})
