import { describe, expect, it } from "vitest"
import { acceptsCommands, type ReadinessFacts, readinessFrom } from "../../src/domain/Readiness.js"
import type { Readiness } from "../../src/services/Terminal.js"

const idle: ReadinessFacts = {
  integration: true,
  promptState: "EDITING",
  commandLineEmpty: true,
  alternateScreen: false
}

describe("readinessFrom", () => {
  const table: ReadonlyArray<readonly [string, Partial<ReadinessFacts>, Readiness]> = [
    ["idle at an empty prompt", {}, "ready"],
    ["text typed at the prompt", { commandLineEmpty: false }, "input_pending"],
    ["command line not measurable", { commandLineEmpty: null }, "unknown"],
    ["a command running", { promptState: "RUNNING" }, "busy"],
    ["finished, no new prompt yet", { promptState: "FINISHED" }, "busy"],
    ["no shell integration", { integration: false }, "shell_integration_required"],
    [
      "no shell integration, even at what looks like a prompt",
      { integration: false, alternateScreen: true },
      "shell_integration_required"
    ],
    ["a full-screen app", { alternateScreen: true }, "interactive"],
    [
      "a full-screen app while the prompt looks empty",
      { alternateScreen: true, promptState: "EDITING" },
      "interactive"
    ],
    ["no prompt at all", { promptState: null }, "interactive"],
    ["an unknown prompt state", { promptState: "SOMETHING_NEW" }, "unknown"],
    ["our own command in flight", { commandInFlight: true }, "busy"]
  ]
  for (const [name, change, expected] of table) {
    it(`${name} → ${expected}`, () => {
      expect(readinessFrom({ ...idle, ...change })).toBe(expected)
    })
  }

  it("only ready accepts commands", () => {
    const all: ReadonlyArray<Readiness> = [
      "ready",
      "busy",
      "input_pending",
      "interactive",
      "shell_integration_required",
      "unknown"
    ]
    expect(all.filter(acceptsCommands)).toEqual(["ready"])
  })
})
