/**
 * A pane's announced tokens, pure: a shell's own token proves only marks without a shell id; a
 * nested shell proves its pane's secret by sha256("<secret>:<shell id>") and never by the secret
 * itself; an unknown token asks for one fresh read of the list and, once refused, never again.
 */
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { TokenBook } from "../../src/domain/tmux/TokenBook.js"

const OWN = "0123456789abcdef0123456789abcdef"
const SECRET = "fedcba9876543210fedcba9876543210"
const sha = (text: string) => createHash("sha256").update(text).digest("hex")

const book = () => {
  const b = new TokenBook()
  b.learn([`${OWN}:41`, `${SECRET}:41:nested`, "not an entry"])
  return b
}

describe("TokenBook", () => {
  it("a shell's own token proves its marks without a shell id, and names its pid", () => {
    const b = book()
    expect(b.prover(OWN, null)?.pid).toBe(41)
    expect(b.prover(OWN, "00aa")).toBeUndefined()
    expect(b.own(OWN)?.pid).toBe(41)
    expect(b.firstShellPid).toBe(41)
  })

  it("a nested shell proves the secret by its hash with its shell id, never by the secret in clear", () => {
    const b = book()
    expect(b.prover(sha(`${SECRET}:00aa11bb`), "00aa11bb")?.nested).toBe(true)
    expect(b.prover(sha(`${SECRET}:00aa11bb`), "ffffffff")).toBeUndefined()
    expect(b.prover(SECRET, "00aa11bb")).toBeUndefined()
    expect(b.prover(SECRET, null)).toBeUndefined()
    expect(b.own(SECRET)).toBeUndefined()
  })

  it("an unknown token asks for a fresh read once; refused, it asks no more, announced, it counts", () => {
    const b = book()
    const stranger = "11112222333344445555666677778888"
    expect(b.unknown(stranger, null)).toBe(true)
    b.checked(stranger)
    expect(b.unknown(stranger, null)).toBe(false)
    expect(b.prover(stranger, null)).toBeUndefined()
    const later = "99990000aaaabbbbccccddddeeeeffff"
    expect(b.unknown(later, null)).toBe(true)
    b.learn([...b.entries, `${later}:77`])
    b.checked(later)
    expect(b.prover(later, null)?.pid).toBe(77)
    expect(b.same([`${OWN}:41`, `${SECRET}:41:nested`, "not an entry", `${later}:77`])).toBe(true)
  })
})
