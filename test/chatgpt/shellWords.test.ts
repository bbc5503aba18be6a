import { Option, Result } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { inlineSecretFinding } from "../../src/domain/InlineSecret.js"
import { joinWords, quoteWord } from "../../src/domain/ShellWords.js"
import { parseAlias, parseEnvName, parseTunnelId } from "../../src/domain/TunnelInputs.js"
import { splitShellWords } from "./splitShellWords.js"

describe("splitShellWords (the doc's rules, independent of our quoting)", () => {
  it("splits the way tunnel-client.md describes", () => {
    expect(splitShellWords(`a  'b c' "d\\"e" f\\ g`)).toEqual(["a", "b c", 'd"e', "f g"])
    expect(splitShellWords(`'$HOME' ~ *`)).toEqual(["$HOME", "~", "*"])
    expect(() => splitShellWords("'open")).toThrow()
    expect(() => splitShellWords('"open')).toThrow()
    expect(() => splitShellWords("end\\")).toThrow()
  })
})

describe("joinWords round-trips through the splitter", () => {
  it("keeps paths with spaces, quotes, backslashes and shell characters intact", () => {
    const words = [
      "/Applications/My Node/bin/node",
      `/Users/o'brien/it's "quoted"/dist/src/cli/bin.js`,
      "C:\\odd\\back\\slashes",
      "$PATH ~ * ; | && `x`",
      "",
      "tab\there\nnewline"
    ]
    expect(splitShellWords(joinWords(words))).toEqual(words)
    expect(quoteWord("it's")).toBe(`'it'\\''s'`)
  })

  it("holds for arbitrary strings", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary" }), { minLength: 1, maxLength: 5 }), (words) => {
        expect(splitShellWords(joinWords(words))).toEqual(words)
      }),
      { numRuns: 500 }
    )
  })
})

describe("inlineSecretFinding (tunnel-client's refusal rules)", () => {
  it("accepts an ordinary quoted node + entry command", () => {
    const command = joinWords([
      "/usr/local/bin/node",
      "/Users/me/.npm/_npx/1a2b/node_modules/termpilot/dist/src/cli/bin.js"
    ])
    expect(Option.isNone(inlineSecretFinding(command))).toBe(true)
  })

  it("refuses commands tunnel-client would refuse", () => {
    for (const bad of [
      "'/x/sk-abcdefghijklmnop/node'",
      "run --header 'Authorization: x'",
      "curl Bearer abcdefghijklmnopq",
      "tool api_key=123",
      "CONTROL_PLANE_API_KEY=x tool",
      "tool https://user:pw@example.com/",
      "tool --api-key literalvalue"
    ]) {
      expect(Option.isSome(inlineSecretFinding(bad)), bad).toBe(true)
    }
    expect(Option.isNone(inlineSecretFinding("tool --api-key env:KEY"))).toBe(true)
    expect(Option.isNone(inlineSecretFinding("tool --api-key --other"))).toBe(true)
  })
})

describe("input parsing", () => {
  it("accepts a trimmed tunnel id and rejects anything else without echoing it", () => {
    const id = "tunnel_0123456789abcdef0123456789abcdef"
    expect(parseTunnelId(`  ${id}\n`)).toEqual(Result.succeed(id))
    for (const bad of [
      "",
      "tunnel_0123456789ABCDEF0123456789abcdef",
      `${id}0`,
      "tunnel_123",
      "sk-secretsecretsecret"
    ]) {
      const result = parseTunnelId(bad)
      expect(Result.isFailure(result), bad).toBe(true)
      if (bad !== "") expect(Result.getFailure(result).pipe(Option.getOrThrow)).not.toContain(bad)
    }
  })

  it("rejects aliases that would read as flags and bad variable names", () => {
    expect(parseAlias(" termpilot ")).toEqual(Result.succeed("termpilot"))
    expect(Result.isFailure(parseAlias("--json"))).toBe(true)
    expect(Result.isFailure(parseAlias("a b"))).toBe(true)
    expect(parseEnvName("MY_KEY")).toEqual(Result.succeed("MY_KEY"))
    expect(Result.isFailure(parseEnvName("1KEY"))).toBe(true)
    expect(Result.isFailure(parseEnvName("KEY=value"))).toBe(true)
  })
})
