/**
 * The JSON-RPC 2.0 envelope check in front of the MCP SDK, which silently drops whatever its own
 * schemas refuse (a client would wait forever). Each line from the client becomes messages to
 * deliver, error answers to send (every message that carries an id gets one; an unparseable line
 * gets -32700 with id null) or problems to log (a malformed notification is never answered). Pure.
 */
import { type JSONRPCMessage, specTypeSchemas } from "@modelcontextprotocol/server"

export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600
export const INVALID_PARAMS = -32602

type RequestId = string | number

export interface ErrorAnswer {
  readonly jsonrpc: "2.0"
  readonly id: RequestId | null
  readonly error: { readonly code: number; readonly message: string }
}

export type Verdict =
  | { readonly _tag: "Deliver"; readonly message: JSONRPCMessage }
  | { readonly _tag: "Answer"; readonly answer: ErrorAnswer }
  | { readonly _tag: "Ignore"; readonly problem: string }

const answer = (id: RequestId | null, code: number, message: string): Verdict => ({
  _tag: "Answer",
  answer: { jsonrpc: "2.0", id, error: { code, message } }
})

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isRequestId = (value: unknown): value is RequestId =>
  typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value))

interface ParseIssue {
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
  readonly message: string
}

/** A Standard Schema check of the SDK's (synchronous): the value, or the issues found. */
type Check = (value: unknown) => {
  readonly issues?: ReadonlyArray<ParseIssue> | undefined
  readonly value?: unknown
}

/** The SDK's Standard Schema for one spec type, looked up on first use (the SDK builds them lazily). */
const check =
  (
    name:
      | "InitializeRequest"
      | "DiscoverRequest"
      | "PingRequest"
      | "ListToolsRequest"
      | "CallToolRequest"
      | "JSONRPCMessage"
  ): Check =>
  (value) =>
    specTypeSchemas[name]["~standard"].validate(value)

/**
 * The SDK's own schema for each request method this server serves on either protocol era
 * (2026-07-28 adds `server/discover`); others get -32601 from the SDK.
 */
const REQUEST_SCHEMAS: Readonly<Record<string, Check>> = {
  initialize: check("InitializeRequest"),
  "server/discover": check("DiscoverRequest"),
  ping: check("PingRequest"),
  "tools/list": check("ListToolsRequest"),
  "tools/call": check("CallToolRequest")
}

const checkJsonRpcMessage = check("JSONRPCMessage")

const firstIssue = (issues: ReadonlyArray<ParseIssue> | undefined): string => {
  const issue = issues?.[0]
  if (issue === undefined) return "does not match the schema"
  const path = (issue.path ?? []).map((part) => String(typeof part === "object" ? part.key : part))
  return `${path.length === 0 ? "the message" : path.join(".")}: ${issue.message}`
}

/** Problems with `params` and `params._meta` that the SDK would drop without a word. */
const paramsProblem = (params: unknown): readonly [number, string] | undefined => {
  if (params === undefined) return undefined
  if (Array.isArray(params))
    return [INVALID_PARAMS, "Invalid params: params must be an object of named parameters, not an array"]
  if (!isObject(params)) return [INVALID_REQUEST, "Invalid Request: params must be an object"]
  if (!("_meta" in params)) return undefined
  const meta = params._meta
  if (!isObject(meta)) return [INVALID_PARAMS, "Invalid params: params._meta must be an object"]
  if ("progressToken" in meta && !isRequestId(meta.progressToken))
    return [INVALID_PARAMS, "Invalid params: params._meta.progressToken must be a string or an integer"]
  return undefined
}

/** The verdict for one parsed JSON value that is not a batch. */
export const checkMessage = (value: unknown): Verdict => {
  if (!isObject(value))
    return answer(null, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
  const hasId = "id" in value
  if (hasId && !isRequestId(value.id))
    return answer(null, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
  const id = hasId ? (value.id as RequestId) : null
  const refuse = (code: number, message: string): Verdict =>
    hasId ? answer(id, code, message) : { _tag: "Ignore", problem: `malformed notification: ${message}` }
  if (value.jsonrpc !== "2.0") return refuse(INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"')
  if (!("method" in value)) {
    if (hasId && ("result" in value || "error" in value)) {
      const parsed = checkJsonRpcMessage(value)
      return parsed.issues === undefined
        ? { _tag: "Deliver", message: value as JSONRPCMessage }
        : { _tag: "Ignore", problem: `malformed response: ${firstIssue(parsed.issues)}` }
    }
    return answer(id, INVALID_REQUEST, "Invalid Request: method is required")
  }
  if (typeof value.method !== "string")
    return refuse(INVALID_REQUEST, "Invalid Request: method must be a string")
  const params = paramsProblem(value.params)
  if (params !== undefined) return refuse(params[0], params[1])
  const schema = hasId ? REQUEST_SCHEMAS[value.method] : undefined
  if (schema !== undefined) {
    const outcome = schema(value)
    if (outcome.issues !== undefined)
      return refuse(INVALID_PARAMS, `Invalid params for ${value.method}: ${firstIssue(outcome.issues)}`)
  }
  const parsed = checkJsonRpcMessage(value)
  if (parsed.issues !== undefined)
    return refuse(INVALID_REQUEST, `Invalid Request: ${firstIssue(parsed.issues)}`)
  return { _tag: "Deliver", message: value as JSONRPCMessage }
}

/** The verdicts for one line from the client (MCP sends one message per line and no batches). */
export const checkLine = (line: string): ReadonlyArray<Verdict> => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause)
    return [answer(null, PARSE_ERROR, `Parse error: the line is not valid JSON (${why})`)]
  }
  if (!Array.isArray(value)) return [checkMessage(value)]
  const message = "Invalid Request: batches are not supported; send one message per line"
  const answers = value
    .filter((item): item is Record<string, unknown> => isObject(item) && isRequestId(item.id))
    .map((item) => answer(item.id as RequestId, INVALID_REQUEST, message))
  return answers.length > 0 ? answers : [answer(null, INVALID_REQUEST, message)]
}
