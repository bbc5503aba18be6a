/**
 * ApprovalState — the `requestState` of an approval asked on MCP 2026-07-28, where the question
 * goes back to the client in an `input_required` result and the client's retry carries the answer.
 * The state comes back through the client, so it is hostile input: it is an HMAC under this
 * process's key (ProcessMac) over the tool name, a digest of the call's arguments, a digest of
 * the exact approval message, a random nonce and an expiry (the approval timeout). A retry is
 * taken only with the same tool and arguments, once (the nonce is remembered until its expiry, in
 * a bounded set), and an expired state counts as no answer in time. Nothing here sends anything.
 */
import { createHash, randomBytes } from "node:crypto"
import { processMac } from "./ProcessMac.js"

/** Keeps approval states apart from everything else the process key signs. */
const DOMAIN = "termpilot.approval-state.v1\0"
const PREFIX = "tpa1."

/** Answered states remembered at once; past this, a retry is refused until some expire. */
export const MAX_USED_NONCES = 4096

/** What one state is bound to. */
export interface ApprovalBinding {
  readonly tool: string
  readonly args: unknown
}

interface Payload {
  readonly t: string
  readonly a: string
  readonly m: string
  readonly n: string
  readonly e: number
}

export type StateCheck =
  /** A state this process minted for this very call: the message it asked, and whether it expired. */
  | { readonly _tag: "Valid"; readonly messageDigest: string; readonly expired: boolean }
  | { readonly _tag: "Invalid"; readonly why: string }

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("base64url")

/** JSON with object keys sorted at every level: the same arguments give the same digest. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(",")}}`
  }
  return JSON.stringify(value ?? null)
}

export const messageDigest = (message: string): string => sha256(message)
const argsDigest = (args: unknown): string => sha256(canonical(args ?? {}))

const sign = (body: string): string =>
  Buffer.from(processMac.sign(new TextEncoder().encode(DOMAIN + body))).toString("base64url")

const isPayload = (value: unknown): value is Payload => {
  if (value === null || typeof value !== "object") return false
  const p = value as Record<string, unknown>
  return (
    typeof p.t === "string" &&
    typeof p.a === "string" &&
    typeof p.m === "string" &&
    typeof p.n === "string" &&
    typeof p.e === "number" &&
    Number.isSafeInteger(p.e)
  )
}

/**
 * The approval states of one server process: mint one when a call asks, check the one a retry
 * brings back. `now` is the clock (ms), injectable for tests.
 */
export const makeApprovalStates = (now: () => number = Date.now) => {
  /** nonce → expiry (ms) of the states already answered. */
  const used = new Map<string, number>()

  const forgetExpired = (at: number) => {
    for (const [nonce, expiry] of used) if (expiry <= at) used.delete(nonce)
  }

  const mint = (binding: ApprovalBinding, message: string, timeoutMs: number): string => {
    const payload: Payload = {
      t: binding.tool,
      a: argsDigest(binding.args),
      m: messageDigest(message),
      n: randomBytes(16).toString("base64url"),
      e: now() + timeoutMs
    }
    const body = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url")
    return `${PREFIX}${body}.${sign(body)}`
  }

  /** Checks a state brought back by a retry of `binding`; a valid, unexpired one is used up. */
  const check = (state: string, binding: ApprovalBinding): StateCheck => {
    const invalid = (why: string): StateCheck => ({ _tag: "Invalid", why })
    const parts = state.startsWith(PREFIX) ? state.slice(PREFIX.length).split(".") : []
    const [body, mac] = parts
    if (parts.length !== 2 || body === undefined || mac === undefined)
      return invalid("it is not an approval state of TermPilot")
    const expected = Buffer.from(sign(body), "base64url")
    if (!processMac.same(Buffer.from(mac, "base64url"), expected))
      return invalid("it was not issued by this TermPilot process, or it was changed")
    let payload: unknown
    try {
      payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8"))
    } catch {
      return invalid("it cannot be read")
    }
    if (!isPayload(payload)) return invalid("it cannot be read")
    if (payload.t !== binding.tool || payload.a !== argsDigest(binding.args))
      return invalid("it was issued for another call (another tool or other arguments)")
    const at = now()
    if (payload.e <= at) return { _tag: "Valid", messageDigest: payload.m, expired: true }
    forgetExpired(at)
    if (used.has(payload.n)) return invalid("it was already answered once (a replay)")
    if (used.size >= MAX_USED_NONCES)
      return invalid("too many approvals were answered in the last approval timeout; ask again later")
    used.set(payload.n, payload.e)
    return { _tag: "Valid", messageDigest: payload.m, expired: false }
  }

  return { mint, check }
}

export type ApprovalStates = ReturnType<typeof makeApprovalStates>
