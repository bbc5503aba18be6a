import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { globMatch, makeSessionPolicy, type PolicySubject } from "../../src/domain/SessionPolicy.js"

const iterm = (profileName: string | null, tag: string | null = null): PolicySubject => ({
  backend: "iterm2",
  profileName,
  tmuxSession: null,
  tag
})
const tmux = (tmuxSession: string | null, tag: string | null = null): PolicySubject => ({
  backend: "tmux",
  profileName: null,
  tmuxSession,
  tag
})

describe("globMatch", () => {
  it.each([
    ["prod", "prod", true],
    ["prod", "production", false],
    ["prod*", "production", true],
    ["*prod", "preprod", true],
    ["*prod*", "my-prod-box", true],
    ["a*b*c", "aXXbYYc", true],
    ["a*b*c", "aXXcYYb", false],
    ["*", "", true],
    ["*", "anything", true],
    ["**", "x", true],
    ["Prod*", "production", false],
    ["p?od", "prod", false],
    ["a*a*a*a*b", `${"a".repeat(40)}`, false]
  ])("%s vs %s → %s", (pattern, value, expected) => {
    expect(globMatch(pattern, value)).toBe(expected)
  })

  it("agrees with an anchored regular expression built from the glob", () => {
    const alphabet = fc.constantFrom("a", "b", "*", ".", "-")
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 8 }),
        fc.array(
          alphabet.filter((c) => c !== "*"),
          { maxLength: 10 }
        ),
        (p, v) => {
          const pattern = p.join("")
          const value = v.join("")
          const regex = new RegExp(
            `^${pattern
              .split("*")
              .map((s) => s.replace(/[.-]/g, "\\$&"))
              .join(".*")}$`
          )
          expect(globMatch(pattern, value)).toBe(regex.test(value))
        }
      ),
      { numRuns: 1000 }
    )
  })
})

describe("makeSessionPolicy", () => {
  it("by default everything is visible and actionable", () => {
    const policy = makeSessionPolicy(undefined)
    for (const s of [iterm("Default"), tmux("work"), iterm(null), tmux(null, "x")]) {
      expect(policy.isVisible(s)).toBe(true)
      expect(policy.isActionable(s)).toBe(true)
    }
    expect(makeSessionPolicy({}).isActionable(iterm("Default"))).toBe(true)
  })

  it("deny hides matching sessions by profile, tmux session or tag", () => {
    const policy = makeSessionPolicy({
      visible: { deny: { profiles: ["Secrets*"], tmuxSessions: ["vault"], tags: ["private"] } }
    })
    expect(policy.isVisible(iterm("Secrets – work"))).toBe(false)
    expect(policy.isVisible(tmux("vault"))).toBe(false)
    expect(policy.isVisible(iterm("Default", "private"))).toBe(false)
    expect(policy.isVisible(iterm("Default"))).toBe(true)
    expect(policy.isVisible(tmux("vault-2"))).toBe(true)
    // Hidden sessions are never actionable.
    expect(policy.isActionable(tmux("vault"))).toBe(false)
    expect(policy.checkVisible(tmux("vault"))).toEqual({
      allowed: false,
      reason: 'excluded by policy.visible.deny (tmux session "vault" matches "vault")'
    })
  })

  it("allow restricts actions to matching sessions; unknown values match nothing", () => {
    const policy = makeSessionPolicy({
      actionable: { allow: { tags: ["ai-ok"], tmuxSessions: ["scratch*"] } }
    })
    expect(policy.isActionable(iterm("Default", "ai-ok"))).toBe(true)
    expect(policy.isActionable(tmux("scratch-1"))).toBe(true)
    expect(policy.isActionable(tmux("prod"))).toBe(false)
    expect(policy.isActionable(iterm(null))).toBe(false)
    expect(policy.isVisible(tmux("prod"))).toBe(true)
    expect(policy.checkActionable(tmux("prod"))).toEqual({
      allowed: false,
      reason: "not included by policy.actionable.allow"
    })
  })

  it("deny wins over allow", () => {
    const policy = makeSessionPolicy({
      actionable: { allow: { profiles: ["*"] }, deny: { profiles: ["*Prod*"], tags: ["prod"] } }
    })
    expect(policy.isActionable(iterm("Dev"))).toBe(true)
    expect(policy.isActionable(iterm("AWS Prod EU"))).toBe(false)
    expect(policy.isActionable(iterm("Dev", "prod"))).toBe(false)
  })

  it("an empty allow includes nothing (fail closed)", () => {
    const policy = makeSessionPolicy({ visible: { allow: {} } })
    expect(policy.isVisible(iterm("Default", "x"))).toBe(false)
  })

  it("read-only makes nothing actionable but keeps visibility", () => {
    const policy = makeSessionPolicy(undefined, { readOnly: true })
    expect(policy.isVisible(tmux("work"))).toBe(true)
    expect(policy.isActionable(tmux("work"))).toBe(false)
    expect(policy.checkActionable(tmux("work"))).toEqual({
      allowed: false,
      reason: "TermPilot is in read-only mode (readOnly)"
    })
  })
})
