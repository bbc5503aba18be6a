/**
 * The runtime key's value never leaves the environment: not in tunnel-client's argv, not in
 * anything printed, not in any file written — while the fake confirms the key WAS available to it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { makeWorld, runChatgpt, type World, worldEnv } from "./harness.js"

const TUNNEL = "tunnel_fedcba9876543210fedcba9876543210"
const SECRET = `sk-proj-NOLEAK${Date.now().toString(36)}Zq7xY3vW9`

let world: World
beforeEach(() => {
  world = makeWorld()
})
afterEach(() => world.cleanup())

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })

it("never exposes the runtime key value in argv, output or files", async () => {
  const printed: Array<string> = []
  const runs: Array<[string, Array<string>]> = [
    ["healthy", ["setup", "--tunnel-id", TUNNEL]],
    ["healthy", ["setup", "--tunnel-id", TUNNEL, "--json"]],
    ["unhealthy", ["setup", "--tunnel-id", TUNNEL]],
    ["error", ["setup", "--tunnel-id", TUNNEL, "--json"]],
    ["healthy", ["status", "--json"]],
    ["healthy", ["doctor"]],
    ["healthy", ["doctor", "--json"]],
    ["healthy", ["disconnect"]],
    // A key pasted into the wrong option must not be echoed either.
    ["healthy", ["setup", "--tunnel-id", SECRET]]
  ]
  for (const [scenario, args] of runs) {
    const result = await runChatgpt(world, args, {
      ...worldEnv(world, scenario),
      CONTROL_PLANE_API_KEY: SECRET
    })
    printed.push(result.stdout, result.stderr)
  }

  const calls = world.records()
  expect(calls.filter((c) => c.argv.includes("connect")).length).toBeGreaterThanOrEqual(4)
  for (const call of calls) {
    expect(call.keyRef).toEqual({ name: "CONTROL_PLANE_API_KEY", set: true })
    expect(call.envNames).toContain("CONTROL_PLANE_API_KEY")
    for (const arg of call.argv) expect(arg).not.toContain(SECRET)
  }
  expect(printed.join("").length).toBeGreaterThan(0)
  for (const text of printed) expect(text).not.toContain(SECRET)
  const files = filesUnder(world.root)
  expect(files).toContain(world.recordFile)
  for (const file of files) expect(readFileSync(file, "utf8"), file).not.toContain(SECRET)
})
