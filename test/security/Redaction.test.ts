import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { redactionMarker, redactSecrets } from "../../src/domain/Redaction.js"
import { makeLookAlikes, makeSecretCorpus } from "./corpus.js"

const corpus = makeSecretCorpus(20261129)

describe("redactSecrets: fake secrets", () => {
  it.each(corpus.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const result = redactSecrets(c.text)
    expect(result.text).toBe(c.text.split(c.secret).join(redactionMarker(c.kind)))
    expect(result.text).not.toContain(c.secret)
    expect(result.count).toBe(1)
    expect(result.kinds).toEqual([c.kind])
  })

  it("holds for many seeds (fresh random secrets every time)", () => {
    for (let seed = 1; seed <= 40; seed++) {
      for (const c of makeSecretCorpus(seed)) {
        const result = redactSecrets(c.text)
        expect(result.text, `${c.name} (seed ${seed})`).toBe(
          c.text.split(c.secret).join(redactionMarker(c.kind))
        )
      }
    }
  })

  it("redacts every secret in a mixed transcript and counts each one", () => {
    const transcript = corpus.map((c) => c.text).join("\n$ next\n")
    const result = redactSecrets(transcript)
    for (const c of corpus) expect(result.text).not.toContain(c.secret)
    expect(result.count).toBe(corpus.length)
    expect(result.kinds).toEqual([...new Set(corpus.map((c) => c.kind))].sort())
  })

  it("redacts secrets wherever they sit in surrounding prose", () => {
    const word = fc.constantFrom("deploy", "ok", "the", "$", "build:", "12:00", "->", "done.", "\n", "(", "#")
    const prose = fc.array(word, { maxLength: 8 }).map((ws) => ws.join(" "))
    fc.assert(
      fc.property(fc.constantFrom(...corpus), prose, prose, (c, before, after) => {
        const text = `${before} ${c.text} ${after}`
        const result = redactSecrets(text)
        expect(result.text).not.toContain(c.secret)
        expect(result.kinds).toContain(c.kind)
      }),
      { numRuns: 300 }
    )
  })

  it("is idempotent: redacted text has nothing left to redact", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...corpus.map((c) => c.text)), fc.string())), (parts) => {
        const once = redactSecrets(parts.join(" "))
        const twice = redactSecrets(once.text)
        expect(twice.text).toBe(once.text)
        expect(twice.count).toBe(0)
      }),
      { numRuns: 300 }
    )
  })
})

describe("redactSecrets: look-alikes stay", () => {
  it.each(makeLookAlikes(7).map((t) => [t.slice(0, 40), t] as const))("%s", (_label, text) => {
    const result = redactSecrets(text)
    expect(result.text).toBe(text)
    expect(result.count).toBe(0)
    expect(result.kinds).toEqual([])
  })

  it("leaves text without any secret unchanged", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme-ascii" }), (text) => {
        // Arbitrary ASCII rarely forms a secret; when it does, the secret has a marker in place.
        const result = redactSecrets(text)
        if (result.count === 0) expect(result.text).toBe(text)
        else expect(result.text).toContain("[REDACTED:")
      }),
      { numRuns: 500 }
    )
  })
})

describe("redactSecrets: linear time on adversarial input", () => {
  const n = 200_000
  const fill = (unit: string) => unit.repeat(Math.ceil(n / unit.length))
  const adversarial: ReadonlyArray<readonly [string, string]> = [
    ["letters", fill("a")],
    ["eyJ runs", fill("eyJ")],
    ["JWT-ish segments", fill("eyJaaaaaaaaaa.")],
    ["password= chains", fill("password=")],
    ["open quotes", fill('password="')],
    ["BEGIN without END", fill("-----BEGIN RSA PRIVATE KEY-----\n")],
    ["END without BEGIN", fill("-----END RSA PRIVATE KEY-----\nAAAA\n")],
    ["END markers on one line", fill("AAAA-----END PRIVATE KEY-----")],
    ["scheme with colons", `https://${fill("a:")}`],
    ["repeated URL heads", fill("https://a:")],
    ["sk- dashes", `sk-${fill("a-")}`],
    ["authorization headers", fill("Authorization: ")],
    ["bearer words", fill("bearer ")],
    ["dash identifiers", fill("a-")],
    ["dot identifiers", fill("a.")],
    ["equals", fill("a=")],
    ["colons", fill("a:")],
    ["AKIA runs", fill("AKIA")],
    ["long key then separator", `${fill("x")}=`],
    ["base64 noise", fill("Zm9vYmFyYmF6cXV4+/==\n")]
  ]
  it.each(adversarial)("%s", (_name, text) => {
    const start = performance.now()
    redactSecrets(text)
    // Quadratic or exponential matching on 200k characters takes minutes; linear takes milliseconds.
    expect(performance.now() - start).toBeLessThan(3000)
  })
})
