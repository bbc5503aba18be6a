import { describe, expect, it } from "vitest"
import {
  codePointLength,
  MAX_COMMAND_CODE_POINTS,
  validateCommand,
  validateIdentifier,
  validateSessionId
} from "../../src/domain/CommandValidation.js"

const GRINNING = "\u{1F600}" // one code point, two UTF-16 units

describe("validateCommand", () => {
  it("accepts ordinary commands, keeping leading and trailing spaces as typed", () => {
    for (const command of [
      "ls -la",
      " echo hidden-from-history",
      "git status  ",
      "echo 'a;b' | wc -c",
      "echo café 日本"
    ]) {
      expect(validateCommand(command)).toBeUndefined()
    }
  })

  it("rejects empty and whitespace-only commands, including Unicode spaces", () => {
    for (const command of ["", " ", "   ", "\u00a0", "\u3000", "\u2003"]) {
      expect(validateCommand(command)).toBe("command must be non-empty")
    }
  })

  it("counts code points, not UTF-16 units: 8192 emoji pass, 8193 do not", () => {
    const atLimit = GRINNING.repeat(MAX_COMMAND_CODE_POINTS)
    expect(atLimit.length).toBe(2 * MAX_COMMAND_CODE_POINTS)
    expect(validateCommand(atLimit)).toBeUndefined()
    expect(validateCommand(atLimit + GRINNING)).toBe("command must be at most 8192 characters")
    expect(validateCommand(`${"a".repeat(MAX_COMMAND_CODE_POINTS - 1)}${GRINNING}`)).toBeUndefined()
    expect(validateCommand("a".repeat(MAX_COMMAND_CODE_POINTS + 1))).toBe(
      "command must be at most 8192 characters"
    )
  })

  it("rejects a 100 kB command as too long", () => {
    expect(validateCommand("x".repeat(100_000))).toBe("command must be at most 8192 characters")
  })

  it("rejects NUL with the prototype's message", () => {
    expect(validateCommand("ls\u0000rm")).toBe("command must not contain NUL characters")
  })

  it("rejects every C0 control, DEL and every C1 control, naming the code point and position", () => {
    const controls = [
      ...Array.from({ length: 0x1f }, (_, i) => i + 1),
      0x7f,
      ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i)
    ]
    for (const cp of controls) {
      const message = validateCommand(`ab${String.fromCodePoint(cp)}c`)
      expect(message, `U+${cp.toString(16)}`).toContain("must not contain control characters")
      expect(message).toContain(`U+${cp.toString(16).toUpperCase().padStart(4, "0")} at position 2`)
    }
  })

  it("rejects the dangerous ones by name: TAB, LF, CR, ESC, Ctrl-C, Ctrl-D, NEL", () => {
    for (const command of [
      "a\tb",
      "ls\nrm -rf ~",
      "ls\r",
      "\u001b[31mred",
      "\u0003",
      "cat\u0004",
      "a\u0085b"
    ]) {
      expect(validateCommand(command)).toMatch(/control characters/)
    }
  })

  it("rejects line and paragraph separators as multi-line input", () => {
    expect(validateCommand("ls\u2028rm")).toBe("command must be a single line (U+2028 at position 2)")
    expect(validateCommand("ls\u2029rm")).toBe("command must be a single line (U+2029 at position 2)")
  })

  it("rejects every bidi override, embedding, isolate and mark character", () => {
    const bidi = [
      0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c
    ]
    for (const cp of bidi) {
      expect(validateCommand(`echo ${String.fromCodePoint(cp)}x`)).toMatch(/bidirectional control characters/)
    }
  })

  it("counts positions in code points after non-BMP text", () => {
    expect(validateCommand(`${GRINNING}${GRINNING}\t`)).toContain("U+0009 at position 2")
  })

  it("rejects lone surrogates", () => {
    expect(validateCommand("echo \ud800")).toMatch(/valid Unicode/)
    expect(validateCommand("echo \udc00x")).toMatch(/valid Unicode/)
  })

  it("accepts neighbours of the forbidden ranges", () => {
    for (const cp of [0x20, 0x7e, 0xa1, 0x2027, 0x2010, 0x061b, 0x2030, 0x205e, 0x115e, 0x2801, 0x3163]) {
      expect(validateCommand(`x${String.fromCodePoint(cp)}y`), `U+${cp.toString(16)}`).toBeUndefined()
    }
  })
})

describe("validateSessionId / validateIdentifier", () => {
  it("accepts iTerm2- and tmux-style ids", () => {
    expect(validateSessionId("w0t1p0:6B3B3C4E-9F6A-4D1C-8B8D-2A1B3C4D5E6F")).toBeUndefined()
    expect(validateSessionId("tmux:%12")).toBeUndefined()
  })

  it("rejects blank, NUL, control and bidi characters", () => {
    expect(validateSessionId("")).toBe("session_id must be non-empty")
    expect(validateSessionId(" \t ")).toBe("session_id must be non-empty")
    expect(validateSessionId("w0\u0000")).toBe("session_id must not contain NUL characters")
    expect(validateSessionId("w0\nw1")).toMatch(/control characters/)
    expect(validateSessionId("w0\u202e")).toMatch(/bidirectional/)
  })

  it("bounds the length at 256 code points", () => {
    expect(validateSessionId("s".repeat(256))).toBeUndefined()
    expect(validateSessionId(GRINNING.repeat(256))).toBeUndefined()
    expect(validateSessionId("s".repeat(257))).toBe("session_id must be at most 256 characters")
  })

  it("names the field it validates", () => {
    expect(validateIdentifier("request_id", " ")).toBe("request_id must be non-empty")
  })
})

describe("codePointLength", () => {
  it("counts pairs once and lone surrogates once", () => {
    expect(codePointLength("")).toBe(0)
    expect(codePointLength(`a${GRINNING}b`)).toBe(3)
    expect(codePointLength("\ud800\ud800")).toBe(2)
    expect(codePointLength("\udc00\ud800")).toBe(2)
  })
})
