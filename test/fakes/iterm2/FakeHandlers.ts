/**
 * FakeHandlers — the FakeRequestHandler of the fake iTerm2: answers each API request from the
 * FakeWorld exactly as iTerm2 would (statuses, presence quirks, absolute coordinates), records
 * every SendText in the ledger, and queues other connections while a transaction is open.
 */
import type {
  ActivateRequest,
  ClientRequest,
  GetBufferRequest,
  GetBufferResponse,
  GetPromptRequest,
  GetPropertyRequest,
  GetPropertyResponse,
  LineContents,
  ListPromptsRequest,
  SendTextRequest,
  ServerResponse
} from "../../../src/generated/iterm2/Iterm2Messages.js"
import type { FakeConnectionHandle, FakeRequestHandler } from "./FakeProtocol.js"
import { answerVariables } from "./FakeVariables.js"
import type { FakeWorld } from "./FakeWorld.js"

const INVALID_REQUEST = "Invalid request. Upgrade iTerm2 to a newer version."
const MAX_TRAILING = 1_000_000

export class FakeHandlers implements FakeRequestHandler {
  /** The world's transactions also stop its clock (shell output is held until the end). */
  readonly handlesTransactions = true
  private readonly tracked = new Set<number>()

  constructor(private readonly world: FakeWorld) {}

  async handle(
    request: ClientRequest,
    connection: FakeConnectionHandle
  ): Promise<ServerResponse | undefined> {
    this.track(connection)
    const world = this.world
    // The check and the request's handling run in one synchronous step (no await between them).
    while (world.transactions.blocks(connection)) await world.transactions.nextTurn()
    if (request.list_sessions_request) return { list_sessions_response: world.listSessions() }
    if (request.get_buffer_request) return getBuffer(world, request.get_buffer_request)
    if (request.send_text_request)
      return { send_text_response: sendText(world, request.send_text_request, connection) }
    if (request.get_prompt_request)
      return { get_prompt_response: getPrompt(world, request.get_prompt_request) }
    if (request.list_prompts_request)
      return { list_prompts_response: listPrompts(world, request.list_prompts_request) }
    if (request.notification_request) {
      const status = world.subscriptions.apply(request.notification_request, connection, (id) =>
        id === "all" ? undefined : world.lookup(id)?.id
      )
      return { notification_response: { status } }
    }
    if (request.variable_request)
      return { variable_response: answerVariables(world, request.variable_request) }
    if (request.focus_request) return { focus_response: { notifications: world.layout.focusList() } }
    if (request.transaction_request) {
      const status = request.transaction_request.begin
        ? await world.transactions.begin(connection)
        : world.transactions.end(connection)
      return { transaction_response: { status } }
    }
    if (request.get_property_request)
      return { get_property_response: getProperty(world, request.get_property_request) }
    if (request.activate_request)
      return { activate_response: { status: activate(world, request.activate_request) } }
    if (request.invoke_function_request)
      return {
        invoke_function_response: await world.alerts.invoke(
          request.invoke_function_request,
          (id) => world.layout.window(id) !== undefined
        )
      }
    return { error: INVALID_REQUEST }
  }

  /** Subscriptions and an open transaction end with their connection. */
  private track(connection: FakeConnectionHandle): void {
    if (this.tracked.has(connection.id)) return
    this.tracked.add(connection.id)
    connection.onClose(() => {
      this.world.subscriptions.dropConnection(connection.id)
      this.world.transactions.end(connection)
    })
  }
}

/** GetBuffer (§3.2, §4.2). Invalid LineRange → undefined (a reply with no submessage). */
const getBuffer = (world: FakeWorld, request: GetBufferRequest): ServerResponse | undefined => {
  const session = request.session === "all" ? undefined : world.lookup(request.session)
  if (session === undefined) return { get_buffer_response: { status: "SESSION_NOT_FOUND" } }
  const range = request.line_range ?? {}
  const options = [range.screen_contents_only, range.trailing_lines, range.windowed_coord_range]
  if (options.filter((o) => o !== undefined).length !== 1) return undefined
  const screen = session.shell.screen
  const { overflow, history, grid } = screen.lineInfo()
  const cols = screen.cols
  let start: { x: number; y: number }
  let end: { x: number; y: number }
  let columns = { location: 0, length: 0 }
  if (range.screen_contents_only !== undefined) {
    start = { x: 0, y: overflow + history }
    end = { x: 0, y: overflow + history + grid }
  } else if (range.trailing_lines !== undefined) {
    const count = Math.max(0, Math.min(range.trailing_lines, history + grid, MAX_TRAILING))
    start = { x: 0, y: overflow + history + grid - count }
    end = { x: 0, y: overflow + history + grid }
  } else {
    const windowed = range.windowed_coord_range!
    start = { x: windowed.coord_range?.start?.x ?? 0, y: windowed.coord_range?.start?.y ?? 0 }
    end = { x: windowed.coord_range?.end?.x ?? 0, y: windowed.coord_range?.end?.y ?? 0 }
    columns = { location: windowed.columns?.location ?? 0, length: windowed.columns?.length ?? 0 }
    if (end.y < start.y || (end.y === start.y && end.x < start.x)) {
      return { get_buffer_response: { status: "INVALID_LINE_RANGE" } }
    }
    // Lines lost to overflow are simply not returned; nothing exists past the screen's last line.
    if (start.y < overflow) start = { x: 0, y: overflow }
    if (end.y > screen.end) end = { x: 0, y: screen.end }
    if (end.y < start.y) end = start
  }
  const colFrom = columns.length > 0 ? columns.location : 0
  const colTo = columns.length > 0 ? Math.min(cols, columns.location + columns.length) : cols
  const contents: Array<LineContents> = []
  const lastY = end.x > 0 ? end.y : end.y - 1
  for (let y = start.y; y <= lastY; y++) {
    const from = Math.max(colFrom, y === start.y ? start.x : 0)
    const to = y === end.y ? Math.min(colTo, end.x) : colTo
    contents.push(screen.contents(y, from, Math.max(from, to), y === end.y && to < cols))
  }
  const response: GetBufferResponse = {
    status: "OK",
    contents,
    cursor: screen.cursor(),
    windowed_coord_range: { coord_range: { start, end }, columns }
  }
  return { get_buffer_response: response }
}

const sendText = (world: FakeWorld, request: SendTextRequest, connection: FakeConnectionHandle) => {
  const text = request.text ?? ""
  world.ledger.record({
    session: request.session ?? "",
    text,
    suppress_broadcast: request.suppress_broadcast,
    at: Date.now(),
    connectionId: connection.id
  })
  if (request.session === "all") {
    for (const s of world.liveSessions()) s.shell.input(text)
    return { status: "OK" as const }
  }
  const session = world.lookup(request.session)
  if (session === undefined) return { status: "SESSION_NOT_FOUND" as const }
  session.shell.input(text)
  return { status: "OK" as const }
}

const getPrompt = (world: FakeWorld, request: GetPromptRequest) => {
  const session = request.session === "all" ? undefined : world.lookup(request.session)
  if (session === undefined) return { status: "SESSION_NOT_FOUND" as const }
  const { prompts } = session.shell
  const mark =
    request.unique_prompt_id === undefined ? prompts.last() : prompts.byId(request.unique_prompt_id)
  if (mark === undefined) return { status: "PROMPT_UNAVAILABLE" as const }
  return prompts.response(mark, session.shell.path)
}

const listPrompts = (world: FakeWorld, request: ListPromptsRequest) => {
  const session = request.session === "all" ? undefined : world.lookup(request.session)
  if (session === undefined) return { status: "SESSION_NOT_FOUND" as const }
  const ids = session.shell.prompts.list().map((m) => m.id)
  const from = request.first_unique_id === undefined ? 0 : ids.indexOf(request.first_unique_id)
  if (from < 0) return { status: "OK" as const, unique_prompt_id: [] }
  const last = request.last_unique_id === undefined ? -1 : ids.indexOf(request.last_unique_id, from)
  return { status: "OK" as const, unique_prompt_id: ids.slice(from, last < 0 ? ids.length : last + 1) }
}

const getProperty = (world: FakeWorld, request: GetPropertyRequest): GetPropertyResponse => {
  const json = (value: unknown): GetPropertyResponse => ({ status: "OK", json_value: JSON.stringify(value) })
  if (request.session_id !== undefined) {
    const session = request.session_id === "all" ? undefined : world.lookup(request.session_id)
    if (session === undefined) return { status: "INVALID_TARGET" }
    const screen = session.shell.screen
    switch (request.name) {
      case "number_of_lines": {
        const info = screen.lineInfo()
        return json({
          overflow: info.overflow,
          grid: info.grid,
          history: info.history,
          first_visible: info.firstVisible
        })
      }
      case "grid_size":
        // The current server code really answers width−1 × height−1 (iterm2-protocol.md §3.10).
        return json({ width: screen.cols - 1, height: screen.rows - 1 })
      case "buried":
        return json(world.layout.buried.includes(session.id))
      default:
        return { status: "UNRECOGNIZED_NAME" }
    }
  }
  if (request.window_id !== undefined) {
    const window = world.layout.window(request.window_id)
    if (window === undefined) return { status: "INVALID_TARGET" }
    const listed = world.listSessions().windows?.find((w) => w.window_id === window.id)
    if (request.name === "frame") return json(listed?.frame ?? {})
    if (request.name === "fullscreen") return json(false)
    return { status: "UNRECOGNIZED_NAME" }
  }
  return { status: "INVALID_TARGET" }
}

const activate = (world: FakeWorld, request: ActivateRequest) => {
  let sessionId: string | undefined
  if (request.session_id !== undefined) sessionId = world.lookup(request.session_id)?.id
  else if (request.tab_id !== undefined) sessionId = world.layout.tab(request.tab_id)?.activeSessionId
  else if (request.window_id !== undefined) {
    const window = world.layout.window(request.window_id)
    sessionId = window?.tabs.find((t) => t.id === window.selectedTabId)?.activeSessionId
  } else {
    world.setAppActive(true)
    return "OK" as const
  }
  if (sessionId === undefined || world.layout.locate(sessionId) === undefined)
    return "BAD_IDENTIFIER" as const
  world.focus(sessionId)
  if (request.activate_app !== undefined) world.setAppActive(true)
  return "OK" as const
}
