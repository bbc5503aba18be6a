/**
 * Sha256: the domain's own SHA-256 gives exactly node:crypto's digest of the same text's UTF-8 bytes:
 * FIPS 180-4's examples, every padding boundary (55, 56, 63, 64 bytes…), astral characters and lone
 * surrogates (encoded as U+FFFD by both), and any string fast-check draws.
 */
import { createHash } from "node:crypto"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { sha256Hex } from "../../src/domain/Sha256.js"

const nodeSha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

describe("sha256Hex", () => {
  it("gives FIPS 180-4's digests", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    )
    expect(sha256Hex("a".repeat(1_000_000))).toBe(
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    )
  })

  it("agrees with node:crypto at every padding boundary", () => {
    for (let length = 0; length <= 130; length++) {
      const text = "x".repeat(length)
      expect(sha256Hex(text), `${length} bytes`).toBe(nodeSha256(text))
    }
  })

  it("hashes the UTF-8 bytes: multi-byte and astral characters, lone surrogates as U+FFFD", () => {
    for (const text of ["é", "€", "😀", "\ud800", "a\udc00b", "tp=\u202e:00aa11bb", "日本語\n\t"]) {
      expect(sha256Hex(text), JSON.stringify(text)).toBe(nodeSha256(text))
    }
  })

  it("agrees with node:crypto on any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
        expect(sha256Hex(text)).toBe(nodeSha256(text))
      }),
      { numRuns: 2000 }
    )
  })
})
