/**
 * The stdio transport the server runs on: newline-delimited JSON-RPC on stdin/stdout like the
 * SDK's StdioServerTransport, but every line passes the envelope check first (src/tools/Envelope.ts)
 * so that every message carrying an id is answered, and nothing from the client ever stops it: an
 * overlong line is answered -32700 and skipped, and the transport keeps reading until stdin ends.
 * The SDK's `serveStdio` takes it as its transport (its own StdioServerTransport would close on an
 * overlong line), and decides the protocol era from the first message it delivers.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server"
import { checkLine, type ErrorAnswer, PARSE_ERROR } from "../tools/Envelope.js"

/** Longest line read (the SDK's own buffer bound); a longer one is refused, not buffered. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024

export interface StdioTransportOptions {
  readonly stdin?: NodeJS.ReadableStream
  readonly stdout?: NodeJS.WritableStream
  /** Told about input that was refused without an answer (a malformed notification or response). */
  readonly onProblem?: (problem: string) => void
  readonly maxLineBytes?: number
}

export class CheckedStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private readonly stdin: NodeJS.ReadableStream
  private readonly stdout: NodeJS.WritableStream
  private readonly maxLineBytes: number
  private chunks: Array<Buffer> = []
  private buffered = 0
  /** Inside a line that was too long: drop bytes until its newline. */
  private skipping = false
  private closed = false
  /** While stdout is full: resolves when it drains. */
  private drained: Promise<void> | undefined

  constructor(private readonly options: StdioTransportOptions = {}) {
    this.stdin = options.stdin ?? process.stdin
    this.stdout = options.stdout ?? process.stdout
    this.maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES
  }

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
    for (let newline = data.indexOf(0x0a); newline !== -1; newline = data.indexOf(0x0a)) {
      this.take(data.subarray(0, newline))
      this.endLine()
      data = data.subarray(newline + 1)
    }
    this.take(data)
  }

  private readonly onStreamError = (error: Error) => this.onerror?.(error)

  private take(part: Buffer): void {
    if (this.skipping || part.length === 0) return
    if (this.buffered + part.length > this.maxLineBytes) {
      this.chunks = []
      this.buffered = 0
      this.skipping = true
      this.reply({
        jsonrpc: "2.0",
        id: null,
        error: { code: PARSE_ERROR, message: `Parse error: a line is longer than ${this.maxLineBytes} bytes` }
      })
      return
    }
    this.chunks.push(part)
    this.buffered += part.length
  }

  private endLine(): void {
    const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "")
    const wasSkipping = this.skipping
    this.chunks = []
    this.buffered = 0
    this.skipping = false
    if (wasSkipping || line.trim() === "") return
    for (const verdict of checkLine(line)) {
      if (verdict._tag === "Deliver") this.onmessage?.(verdict.message)
      else if (verdict._tag === "Answer") this.reply(verdict.answer)
      else this.options.onProblem?.(verdict.problem)
    }
  }

  private reply(answer: ErrorAnswer): void {
    void this.write(answer)
  }

  /**
   * Resolves once stdout has taken the line. While stdout is full, every waiting write shares one
   * "drain" listener (one per write would pile up listeners under a burst of answers).
   */
  private write(message: unknown): Promise<void> {
    if (this.closed) return Promise.resolve()
    if (this.stdout.write(`${JSON.stringify(message)}\n`) && this.drained === undefined)
      return Promise.resolve()
    this.drained ??= new Promise((resolve) => {
      this.stdout.once("drain", () => {
        this.drained = undefined
        resolve()
      })
    })
    return this.drained
  }

  async start(): Promise<void> {
    this.stdin.on("data", this.onData)
    this.stdin.on("error", this.onStreamError)
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.stdin.off("data", this.onData)
    this.stdin.off("error", this.onStreamError)
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause()
    this.onclose?.()
  }
}
