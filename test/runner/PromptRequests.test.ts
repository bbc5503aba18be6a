/**
 * PromptRequests and CommandRunner.requestAt: the runner names the run_command request that typed
 * at a prompt (the prompt its submit returned), per session; a prompt it did not type at is null;
 * the oldest is forgotten past the capacity.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makePromptRequests } from "../../src/layers/runner/PromptRequests.js"
import { CommandRunner } from "../../src/services/CommandRunner.js"
import { FakeTerminalDriver } from "../fakes/FakeTerminal.js"
import { inWorld, request } from "./support.js"

describe("PromptRequests", () => {
  it.effect("remembers the request per session and prompt", () =>
    Effect.gen(function* () {
      const prompts = yield* makePromptRequests(4)
      yield* prompts.remember("s1", "p1", "r1")
      yield* prompts.remember("s2", "p1", "r2")
      expect(yield* prompts.requestAt("s1", "p1")).toBe("r1")
      expect(yield* prompts.requestAt("s2", "p1")).toBe("r2")
      expect(yield* prompts.requestAt("s1", "p2")).toBeNull()
      expect(yield* prompts.requestAt("s3", "p1")).toBeNull()
    })
  )

  it.effect("keeps the newest `capacity`, forgetting the oldest first", () =>
    Effect.gen(function* () {
      const prompts = yield* makePromptRequests(3)
      for (const n of [1, 2, 3, 4, 5]) yield* prompts.remember("s1", `p${n}`, `r${n}`)
      const kept = yield* Effect.forEach([1, 2, 3, 4, 5], (n) => prompts.requestAt("s1", `p${n}`))
      expect(kept).toEqual([null, null, "r3", "r4", "r5"])
    })
  )
})

describe("CommandRunner.requestAt", () => {
  it.effect("names the run_command request that typed at the prompt its submit returned", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p7" })
        expect(yield* runner.requestAt("s1", "p7")).toBeNull()
        const result = yield* runner.run(request("s1", "make test", { waitForCompletion: false }))
        expect(result.status).toBe("submitted")
        expect(yield* runner.requestAt("s1", "p7")).toBe(result.request_id)
        expect(yield* runner.requestAt("s1", "p8")).toBeNull()
        expect(yield* runner.requestAt("s2", "p7")).toBeNull()
      })
    )
  )

  it.effect("a command refused before sending types at no prompt", () =>
    inWorld(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const fake = yield* FakeTerminalDriver
        yield* fake.addSession("s1", { promptId: "p7", readiness: "busy" })
        const result = yield* runner.run(request("s1", "make test", { waitForCompletion: false }))
        expect(result).toMatchObject({ status: "rejected", sent: false })
        expect(yield* runner.requestAt("s1", "p7")).toBeNull()
      })
    )
  )
})
