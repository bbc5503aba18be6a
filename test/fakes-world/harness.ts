/**
 * Test harness for the fake iTerm2 world: a FakeConnectionHandle that collects pushed
 * notifications (with bounded waits), and typed shortcuts for calling the world's handler.
 */
import type {
  ClientRequest,
  GetBufferResponse,
  GetPromptResponse,
  Notification,
  ServerResponse
} from "../../src/generated/iterm2/Iterm2Messages.js"
import type { FakeConnectionHandle } from "../fakes/iterm2/FakeProtocol.js"
import type { FakeWorld } from "../fakes/iterm2/FakeWorld.js"

let nextId = 1

export class CollectingConnection implements FakeConnectionHandle {
  readonly id = nextId++
  readonly pushed: Array<Notification> = []
  closed = false
  private readonly closeListeners: Array<() => void> = []
  private readonly waiters = new Set<() => void>()

  push(notification: Notification): void {
    if (this.closed) return
    this.pushed.push(notification)
    for (const w of [...this.waiters]) w()
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener)
  }

  close(): void {
    this.closed = true
    for (const l of this.closeListeners) l()
  }

  /** Resolves with the first pushed notification (from index `from`) matching, bounded. */
  waitFor(match: (n: Notification) => boolean, from = 0, timeoutMs = 10_000): Promise<Notification> {
    const find = () => this.pushed.slice(from).find(match)
    const found = find()
    if (found !== undefined) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = find()
        if (hit === undefined) return
        clearTimeout(timer)
        this.waiters.delete(check)
        resolve(hit)
      }
      const timer = setTimeout(() => {
        this.waiters.delete(check)
        reject(
          new Error(`no matching notification within ${timeoutMs} ms; got ${JSON.stringify(this.pushed)}`)
        )
      }, timeoutMs)
      this.waiters.add(check)
    })
  }
}

export const call = async (
  world: FakeWorld,
  request: ClientRequest,
  connection: FakeConnectionHandle
): Promise<ServerResponse | undefined> => world.handler.handle(request, connection)

export const getPrompt = async (
  world: FakeWorld,
  connection: FakeConnectionHandle,
  session: string,
  uniquePromptId?: string
): Promise<GetPromptResponse> => {
  const request = uniquePromptId === undefined ? { session } : { session, unique_prompt_id: uniquePromptId }
  const response = await call(world, { get_prompt_request: request }, connection)
  return response!.get_prompt_response!
}

export const getLines = async (
  world: FakeWorld,
  connection: FakeConnectionHandle,
  session: string,
  firstLine: number,
  count: number
): Promise<GetBufferResponse> => {
  const windowed = {
    coord_range: { start: { x: 0, y: firstLine }, end: { x: 0, y: firstLine + count } },
    columns: { location: 0, length: 0 }
  }
  const response = await call(
    world,
    { get_buffer_request: { session, line_range: { windowed_coord_range: windowed } } },
    connection
  )
  return response!.get_buffer_response!
}

/** Joins LineContents the way Python's runcommand example does: "\n" only after HARD ends. */
export const joinLines = (buffer: GetBufferResponse): string =>
  (buffer.contents ?? [])
    .map(
      (line) =>
        (line.text ?? "") +
        ((line.continuation ?? "CONTINUATION_HARD_EOL") === "CONTINUATION_HARD_EOL" ? "\n" : "")
    )
    .join("")

export const promptEvents = (connection: CollectingConnection, session: string) =>
  connection.pushed
    .map((n) => n.prompt_notification)
    .filter((p) => p !== undefined && p.session === session)
    .map((p) =>
      p!.prompt !== undefined ? "PROMPT" : p!.command_start !== undefined ? "COMMAND_START" : "COMMAND_END"
    )
