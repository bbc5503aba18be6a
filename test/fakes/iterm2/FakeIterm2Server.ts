/**
 * A protocol-level fake iTerm2: a WebSocket server on a unix socket in a temp dir that enforces
 * iTerm2's handshake (FakeHandshake), decodes ClientOriginatedMessages, answers transactions
 * like iTerm2 (nesting → ALREADY_IN_TRANSACTION, other connections wait), hands every other
 * request to a pluggable FakeRequestHandler, and offers faults for tests.
 */
import { existsSync, linkSync, mkdtempSync, renameSync, rmSync, unlinkSync } from "node:fs"
import net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { WebSocket, WebSocketServer } from "ws"
import type {
  ClientRequest,
  ClientSubmessages,
  Notification,
  ServerOriginatedMessage,
  ServerResponse
} from "../../../src/generated/iterm2/Iterm2Messages.js"
import { iterm2Codec } from "../../../src/layers/backends/iterm2/Codec.js"
import {
  parseRequestHead,
  REQUEST_TIMEOUT_MS,
  type RejectStatus,
  statusLines,
  verdict
} from "./FakeHandshake.js"
import type { FakeConnectionHandle, FakeRequestHandler } from "./FakeProtocol.js"

export type RequestKind = keyof ClientSubmessages
export type FakeFault =
  | { readonly delayMs: number }
  | { readonly neverReply: true }
  | { readonly error: string }
  | { readonly emptyReply: true }

export interface FakeIterm2Options {
  readonly handler: FakeRequestHandler
  /** Valid single-use cookies (each consumed by the handshake that presents it). */
  readonly cookies?: Iterable<string>
  /** "Allow all apps to connect": no cookie needed. Default false. */
  readonly allowAll?: boolean
  /** X-iTerm2-Protocol-Version. Default "1.11", what every released 3.5.x/3.6.x build reports. */
  readonly protocolVersion?: string
}

export interface LoggedRequest {
  readonly connection: number
  readonly id: number | undefined
  readonly request: ClientRequest
}

export const INVALID_REQUEST = "Invalid request. Upgrade iTerm2 to a newer version."

interface Conn extends FakeConnectionHandle {
  readonly ws: WebSocket
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export class FakeIterm2Server {
  readonly dir: string
  readonly socketPath: string
  /** Every decoded request with a submessage, in arrival order. */
  readonly requests: Array<LoggedRequest> = []
  private readonly cookies: Set<string>
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: 0,
    handleProtocols: () => "api.iterm2.com"
  })
  private server: net.Server | undefined
  private readonly sockets = new Set<net.Socket>()
  private readonly conns = new Set<Conn>()
  private nextConnId = 0
  private accepted = 0
  private rejectNext: RejectStatus | undefined
  private nextFault: FakeFault | undefined
  private readonly kindFaults = new Map<RequestKind, FakeFault>()
  private readonly beforeKind = new Map<RequestKind, () => Promise<void>>()
  private transactionOwner: Conn | undefined
  private transactionWaiters: Array<() => void> = []
  private readonly requestListeners = new Set<() => void>()

  private constructor(private readonly options: FakeIterm2Options) {
    this.dir = mkdtempSync(join(tmpdir(), "termpilot-fake-iterm2-"))
    this.socketPath = join(this.dir, "socket")
    this.cookies = new Set(options.cookies ?? [])
    this.wss.on("headers", (headers) => {
      headers.push(`X-iTerm2-Protocol-Version: ${this.options.protocolVersion ?? "1.11"}`)
    })
  }

  static async start(options: FakeIterm2Options): Promise<FakeIterm2Server> {
    const fake = new FakeIterm2Server(options)
    await fake.listen()
    return fake
  }

  /** Handshakes accepted since start. */
  get connectionCount(): number {
    return this.accepted
  }
  get openConnections(): number {
    return this.conns.size
  }

  addCookie(cookie: string): void {
    this.cookies.add(cookie)
  }
  /** Send a notification (no id) to every open connection. */
  push(notification: Notification): void {
    for (const conn of this.conns) conn.push(notification)
  }
  /** Apply `fault` to the next request of any kind, once. */
  faultNext(fault: FakeFault): void {
    this.nextFault = fault
  }
  /** Apply `fault` to every request of `kind` until clearFaults(). */
  faultKind(kind: RequestKind, fault: FakeFault): void {
    this.kindFaults.set(kind, fault)
  }
  clearFaults(): void {
    this.nextFault = undefined
    this.kindFaults.clear()
    this.beforeKind.clear()
  }
  /**
   * Let the terminal move on (`action`: output, a command the person runs) after the next request
   * of `kind` arrived and before it is handled, once: what iTerm2 does between two requests that
   * are not in one transaction.
   */
  beforeNext(kind: RequestKind, action: () => Promise<void>): void {
    this.beforeKind.set(kind, action)
  }
  /** Answer the next handshake with a bare status line (default 401), whatever it carries. */
  rejectNextHandshake(status: RejectStatus = 401): void {
    this.rejectNext = status
  }
  /** Drop every connection now (no close frame), as a crashing iTerm2 would. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy()
  }
  /** Resolves once at least `count` requests have arrived (bounded by `timeoutMs`). */
  waitForRequests(count: number, timeoutMs = 5_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.requests.length < count) return
        clearTimeout(timer)
        this.requestListeners.delete(check)
        resolve()
      }
      const timer = setTimeout(() => {
        this.requestListeners.delete(check)
        reject(new Error(`fake iTerm2: ${this.requests.length}/${count} requests after ${timeoutMs} ms`))
      }, timeoutMs)
      this.requestListeners.add(check)
      check()
    })
  }

  /** Stop listening but leave the socket file behind, so a connect gets ECONNREFUSED. */
  async stop(): Promise<void> {
    await this.shutdown(true)
  }
  /** Listen again on the same path (replacing a stale socket file, as iTerm2 does). */
  async restart(): Promise<void> {
    await this.stop()
    await this.listen()
  }
  /** Stop and remove the temp dir. */
  async close(): Promise<void> {
    await this.shutdown(false)
    this.wss.close()
    rmSync(this.dir, { recursive: true, force: true })
  }

  private async shutdown(keepSocketFile: boolean): Promise<void> {
    const server = this.server
    if (server === undefined) return
    this.server = undefined
    this.dropConnections()
    // Closing a listening unix socket unlinks its file; a hard link keeps the (now dead) inode.
    const keep = `${this.socketPath}.stale`
    const kept = keepSocketFile && existsSync(this.socketPath)
    if (kept) linkSync(this.socketPath, keep)
    await new Promise<void>((resolve) => server.close(() => resolve()))
    if (kept) renameSync(keep, this.socketPath)
  }

  private listen(): Promise<void> {
    try {
      unlinkSync(this.socketPath)
    } catch {
      // nothing to replace
    }
    const server = net.createServer((socket) => this.accept(socket))
    this.server = server
    return new Promise((resolve, reject) => {
      server.once("error", reject)
      server.listen(this.socketPath, () => resolve())
    })
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket)
    socket.on("close", () => this.sockets.delete(socket))
    socket.on("error", () => {})
    let buffer = Buffer.alloc(0)
    const reject = (status: RejectStatus) => {
      socket.removeListener("data", onData)
      clearTimeout(timer)
      socket.end(statusLines[status])
    }
    const timer = setTimeout(() => reject(400), REQUEST_TIMEOUT_MS)
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk])
      const parsed = parseRequestHead(buffer)
      if (parsed._tag === "Incomplete") return
      if (parsed._tag === "Bad") return reject(400)
      const rejectNext = this.rejectNext
      this.rejectNext = undefined
      const outcome =
        rejectNext ??
        verdict(parsed.head, {
          allowAll: this.options.allowAll ?? false,
          consumeCookie: (c) => this.cookies.delete(c)
        })
      if (outcome !== "accept") return reject(outcome)
      socket.removeListener("data", onData)
      clearTimeout(timer)
      const req = {
        method: "GET",
        url: "/",
        headers: { ...parsed.head.headers, "sec-websocket-version": "13" },
        socket
      }
      this.wss.handleUpgrade(req as never, socket, parsed.rest, (ws) => this.connected(ws))
    }
    socket.on("data", onData)
  }

  private connected(ws: WebSocket): void {
    this.accepted++
    const closeListeners: Array<() => void> = []
    const conn: Conn = {
      id: ++this.nextConnId,
      ws,
      get closed() {
        return ws.readyState !== WebSocket.OPEN
      },
      push: (notification) => this.send(conn, { notification }),
      onClose: (listener) => {
        if (conn.closed) listener()
        else closeListeners.push(listener)
      }
    }
    this.conns.add(conn)
    ws.on("close", () => {
      this.conns.delete(conn)
      if (this.transactionOwner === conn) this.endTransaction()
      for (const listener of closeListeners.splice(0)) listener()
    })
    ws.on("message", (data, isBinary) => {
      if (!isBinary) return
      void this.onFrame(conn, Buffer.isBuffer(data) ? data : Buffer.concat(data as Array<Buffer>))
    })
  }

  private send(conn: Conn, message: ServerOriginatedMessage): void {
    if (conn.ws.readyState === WebSocket.OPEN)
      conn.ws.send(iterm2Codec().encodeServer(message), { binary: true })
  }

  private async onFrame(conn: Conn, bytes: Buffer): Promise<void> {
    let decoded: ReturnType<ReturnType<typeof iterm2Codec>["decodeClient"]>
    try {
      decoded = iterm2Codec().decodeClient(bytes)
    } catch {
      return // iTerm2 silently drops what it cannot parse
    }
    const { id, ...submessages } = decoded
    const kind = (Object.keys(submessages) as Array<RequestKind>).find((k) => submessages[k] !== undefined)
    const reply = (response: ServerResponse | undefined) =>
      this.send(conn, { ...(id === undefined ? {} : { id }), ...response })
    if (kind === undefined) return reply({ error: INVALID_REQUEST })
    const request = { [kind]: submessages[kind] } as ClientRequest
    this.requests.push({ connection: conn.id, id, request })
    for (const listener of [...this.requestListeners]) listener()
    const fault = this.nextFault ?? this.kindFaults.get(kind)
    this.nextFault = undefined
    if (fault !== undefined) {
      if ("neverReply" in fault) return
      if ("error" in fault) return reply({ error: fault.error })
      if ("emptyReply" in fault) return reply(undefined)
      await delay(fault.delayMs)
      // What iTerm2 already received it still carries out (a late SendText types), but it does not
      // open a transaction for a client that has left.
      if (conn.closed && kind === "transaction_request") return
    }
    const before = this.beforeKind.get(kind)
    if (before !== undefined) {
      this.beforeKind.delete(kind)
      try {
        await before()
      } catch (error) {
        return reply({ error: `fake iTerm2: the action before this request failed: ${String(error)}` })
      }
    }
    if (this.options.handler.handlesTransactions !== true) {
      // While another connection holds a transaction, iTerm2 runs only that connection's requests.
      while (this.transactionOwner !== undefined && this.transactionOwner !== conn) {
        await new Promise<void>((resolve) => this.transactionWaiters.push(resolve))
      }
      if (request.transaction_request !== undefined)
        return reply(this.transaction(conn, request.transaction_request))
    }
    try {
      reply(await this.options.handler.handle(request, conn))
    } catch (error) {
      reply({ error: `fake iTerm2 handler failed: ${String(error)}` })
    }
  }

  private transaction(conn: Conn, request: { readonly begin?: boolean }): ServerResponse {
    if (request.begin === true) {
      if (this.transactionOwner === conn)
        return { transaction_response: { status: "ALREADY_IN_TRANSACTION" } }
      this.transactionOwner = conn
      return { transaction_response: { status: "OK" } }
    }
    if (this.transactionOwner !== conn) return { transaction_response: { status: "NO_TRANSACTION" } }
    this.endTransaction()
    return { transaction_response: { status: "OK" } }
  }

  private endTransaction(): void {
    this.transactionOwner = undefined
    for (const wake of this.transactionWaiters.splice(0)) wake()
  }
}
