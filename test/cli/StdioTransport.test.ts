/**
 * CheckedStdioTransport's writes under backpressure, on real Node streams: a burst of answers to a
 * slow reader all arrive, whole and in order, each send resolves only once stdout has taken it, and
 * the burst adds one "drain" listener, not one per answer (Node warns past 10).
 */
import { PassThrough, Writable } from "node:stream"
import { afterEach, describe, expect, it } from "vitest"
import { CheckedStdioTransport } from "../../src/cli/StdioTransport.js"

const warnings: Array<Error> = []
const onWarning = (warning: Error) => warnings.push(warning)
afterEach(() => {
  process.off("warning", onWarning)
  warnings.length = 0
})

/** A stdout that holds 64 bytes and takes one chunk every 2 ms. */
const slowStdout = () => {
  const lines: Array<string> = []
  const stdout = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"))
      setTimeout(done, 2)
    }
  })
  return { stdout, lines }
}

describe("CheckedStdioTransport writes", () => {
  it("delivers a burst of 50 answers to a slow reader in order, with one drain listener at most", async () => {
    process.on("warning", onWarning)
    const { stdout, lines } = slowStdout()
    const transport = new CheckedStdioTransport({ stdin: new PassThrough(), stdout })
    await transport.start()
    let maxListeners = 0
    const sends = Array.from({ length: 50 }, (_, id) => {
      const sent = transport.send({ jsonrpc: "2.0", id, result: { text: "x".repeat(40) } })
      maxListeners = Math.max(maxListeners, stdout.listenerCount("drain"))
      return sent
    })
    await Promise.all(sends)
    await new Promise((r) => setImmediate(r))
    expect(lines.map((line) => (JSON.parse(line) as { id: number }).id)).toEqual([...Array(50).keys()])
    expect(lines.every((line) => line.endsWith("\n"))).toBe(true)
    expect(maxListeners).toBe(1)
    expect(stdout.listenerCount("drain")).toBe(0)
    expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning")
    await transport.close()
  })

  it("resolves a send only once a full stdout has drained", async () => {
    const { stdout, lines } = slowStdout()
    const transport = new CheckedStdioTransport({ stdin: new PassThrough(), stdout })
    await transport.start()
    let resolved = false
    const first = transport.send({ jsonrpc: "2.0", id: 1, result: { text: "y".repeat(100) } })
    void first.then(() => {
      resolved = true
    })
    await Promise.resolve()
    expect(resolved).toBe(false)
    await first
    expect(lines).toHaveLength(1)
    // Drained: the next small answer is taken at once.
    await transport.send({ jsonrpc: "2.0", id: 2, result: {} })
    await transport.close()
  })
})
