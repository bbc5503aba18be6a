/**
 * Pure OSC 133 / 7 / 1337 parsing (a C mark's percent-encoded `cmd=` too), OSC sequences found by the VT parser across chunks, and the prompt lifecycle step
 * (iTerm2's rules: D between B and C aborts, D without a status after C changes nothing).
 */
import { describe, expect, it } from "vitest"
import {
  decodeUrlText,
  MAX_ENCODED_COMMAND,
  type Osc133Mark,
  osc133Command,
  type PromptPhase,
  parseOsc7,
  parseOsc133,
  parseOsc1337,
  stepPrompt
} from "../../src/domain/Osc133.js"
import { VtParser } from "../../src/domain/VtParser.js"

describe("Osc133", () => {
  it("parses the four marks, D with and without a status, and ignores parameters", () => {
    expect(parseOsc133("A")).toEqual({ _tag: "PromptStart" })
    expect(parseOsc133("A;cl=m;aid=1")).toEqual({ _tag: "PromptStart" })
    expect(parseOsc133("B")).toEqual({ _tag: "CommandLineStart" })
    expect(parseOsc133("C")).toEqual({ _tag: "CommandExecuted" })
    expect(parseOsc133("D;7")).toEqual({ _tag: "CommandFinished", exitCode: 7 })
    expect(parseOsc133("D;130;aid=1")).toEqual({ _tag: "CommandFinished", exitCode: 130 })
    expect(parseOsc133("D")).toEqual({ _tag: "CommandFinished", exitCode: null })
    expect(parseOsc133("D;x")).toEqual({ _tag: "CommandFinished", exitCode: null })
    expect(parseOsc133("E;1")).toBeNull()
    expect(parseOsc133("")).toBeNull()
  })

  it("parses OSC 7 file URLs (percent-decoded) and iTerm2's CurrentDir / RemoteHost", () => {
    expect(parseOsc7("file://vm/tmp/a%20b")).toEqual({ _tag: "Directory", path: "/tmp/a b", host: "vm" })
    expect(parseOsc7("file:///srv")).toEqual({ _tag: "Directory", path: "/srv", host: null })
    expect(parseOsc7("http://vm/x")).toBeNull()
    expect(parseOsc1337("CurrentDir=/home/u")).toEqual({ _tag: "Directory", path: "/home/u", host: null })
    expect(parseOsc1337("RemoteHost=u@h.example")).toEqual({
      _tag: "RemoteHost",
      user: "u",
      host: "h.example"
    })
    expect(parseOsc1337("RemoteHost=h")).toEqual({ _tag: "RemoteHost", user: null, host: "h" })
    expect(parseOsc1337("SetMark")).toBeNull()
    expect(parseOsc1337("File=inline=1:AAAA")).toBeNull()
  })

  it("scans OSC sequences split across chunks, with BEL or ST terminators", () => {
    const stream = "out\x1b]133;D;1\x07\x1b]7;file://vm/tmp\x1b\\\x1b]133;A\x07$ \x1b]133;B\x07"
    for (let cut = 0; cut <= stream.length; cut++) {
      const found: Array<{ ident: number; payload: string }> = []
      const parser = new VtParser()
      const sink = {
        print: () => {},
        execute: () => {},
        csi: () => {},
        stringStart: () => {},
        abandoned: () => {},
        osc: (ident: number, payload: string) => {
          found.push({ ident, payload })
          return false
        }
      }
      parser.write(stream.slice(0, cut), sink)
      parser.write(stream.slice(cut), sink)
      expect(found).toEqual([
        { ident: 133, payload: "D;1" },
        { ident: 7, payload: "file://vm/tmp" },
        { ident: 133, payload: "A" },
        { ident: 133, payload: "B" }
      ])
      expect(parser.inGround).toBe(true)
    }
  })

  it("steps the prompt lifecycle as iTerm2 does", () => {
    const run = (marks: ReadonlyArray<Osc133Mark>) => {
      let phase: PromptPhase = "none"
      const steps: Array<string> = []
      for (const mark of marks) {
        const next = stepPrompt(phase, mark)
        phase = next.phase
        steps.push(next.step._tag === "CommandEnded" ? `CommandEnded(${next.step.exitCode})` : next.step._tag)
      }
      return { phase, steps }
    }
    const A = { _tag: "PromptStart" } as const
    const B = { _tag: "CommandLineStart" } as const
    const C = { _tag: "CommandExecuted" } as const
    const D = (exitCode: number | null) => ({ _tag: "CommandFinished", exitCode }) as const
    expect(run([A, B, C, D(2)])).toEqual({
      phase: "finished",
      steps: ["NewPrompt", "PromptDrawn", "CommandStarted", "CommandEnded(2)"]
    })
    // Empty Enter: no C, D without a status → aborted while editing.
    expect(run([A, B, D(null)]).steps).toEqual(["NewPrompt", "PromptDrawn", "Aborted"])
    // A multi-line paste: one C per line, only the first counts.
    expect(run([A, B, C, C, D(4)]).steps).toEqual([
      "NewPrompt",
      "PromptDrawn",
      "CommandStarted",
      "Ignored",
      "CommandEnded(4)"
    ])
    expect(run([A, B, C, D(null)]).phase).toBe("running")
  })
})

describe("a C mark's command line (cmd=)", () => {
  it("is decoded exactly as the snippets encode it (bytes outside A-Z a-z 0-9 / . _ ~ - as %XX, UTF-8)", () => {
    expect(osc133Command("C;tp=0123456789abcdef;n=3;cmd=make%20-C%20a/b%20%22x%3By%22%20%C3%A9")).toBe(
      'make -C a/b "x;y" \u00e9'
    )
    expect(decodeUrlText("%ff")).toBe("\ufffd")
  })

  it("is null when absent, empty (the snippet left a long line out), too long or not so encoded", () => {
    expect(osc133Command("C;tp=0123456789abcdef;n=3")).toBeNull()
    expect(osc133Command("C;tp=0123456789abcdef;n=3;cmd=")).toBeNull()
    expect(osc133Command(`C;cmd=${"a".repeat(MAX_ENCODED_COMMAND + 1)}`)).toBeNull()
    for (const bad of ["a b", "%4", "%zz", "x\u001b]0;t\u0007", "caf\u00e9"])
      expect(osc133Command(`C;cmd=${bad}`)).toBeNull()
  })
})
