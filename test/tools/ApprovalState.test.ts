/**
 * ApprovalState: the request state of a 2026-07-28 approval is taken back only for the call it
 * was minted for, once, before its expiry; anything else is refused with a reason.
 */
import { describe, expect, it } from "vitest"
import { MAX_USED_NONCES, makeApprovalStates } from "../../src/tools/ApprovalState.js"

const call = { tool: "run_command", args: { session_id: "s", command: "echo hi" } }

const clock = () => {
  let now = 1_000_000
  return { now: () => now, advance: (ms: number) => (now += ms) }
}

describe("approval states", () => {
  it("a state is valid once for its own call, with the digest of its message", () => {
    const states = makeApprovalStates()
    const state = states.mint(call, "Run »echo hi«?", 60_000)
    const first = states.check(state, call)
    expect(first).toMatchObject({ _tag: "Valid", expired: false })
    expect(states.check(state, call)).toMatchObject({
      _tag: "Invalid",
      why: expect.stringContaining("replay")
    })
  })

  it("the arguments' key order does not matter; their values and the tool do", () => {
    const states = makeApprovalStates()
    const reordered = { tool: "run_command", args: { command: "echo hi", session_id: "s" } }
    expect(states.check(states.mint(call, "m", 60_000), reordered)._tag).toBe("Valid")
    const other = { ...call, args: { ...call.args, command: "echo HI" } }
    expect(states.check(states.mint(call, "m", 60_000), other)).toMatchObject({ _tag: "Invalid" })
    expect(states.check(states.mint(call, "m", 60_000), { ...call, tool: "send_keys" })).toMatchObject({
      _tag: "Invalid"
    })
  })

  it("a state of another process (another key) or a changed one is refused", () => {
    const mine = makeApprovalStates()
    const state = mine.mint(call, "m", 60_000)
    const flipped = `${state.slice(0, 10)}${state[10] === "A" ? "B" : "A"}${state.slice(11)}`
    expect(mine.check(flipped, call)._tag).toBe("Invalid")
    expect(mine.check("tpa1.e30.AAAA", call)._tag).toBe("Invalid")
    expect(mine.check("", call)._tag).toBe("Invalid")
  })

  it("past its expiry a state is an answer too late, and never consumes room", () => {
    const time = clock()
    const states = makeApprovalStates(time.now)
    const state = states.mint(call, "m", 2000)
    time.advance(2000)
    expect(states.check(state, call)).toMatchObject({ _tag: "Valid", expired: true })
  })

  it("the answered set is bounded: full of live entries it refuses, and expired ones make room", () => {
    const time = clock()
    const states = makeApprovalStates(time.now)
    for (let i = 0; i < MAX_USED_NONCES; i++)
      expect(states.check(states.mint(call, "m", 1000), call)._tag).toBe("Valid")
    const extra = states.mint(call, "m", 5000)
    expect(states.check(extra, call)).toMatchObject({
      _tag: "Invalid",
      why: expect.stringContaining("too many")
    })
    time.advance(1000)
    expect(states.check(extra, call)).toMatchObject({ _tag: "Valid", expired: false })
  })
})
