/**
 * FakeAlerts — iTerm2's `iterm2.alert` function, as an InvokeFunctionRequest reaches it: the
 * invocation is parsed as iTerm2 parses a call (named arguments whose values are literals: strings
 * with JSON escapes, arrays of them), the alert is "shown" (modal on the window `window_id` names,
 * app-modal when none does), and the reply is the pressed button's index plus 1000, as NSAlert
 * answers. A test presses a button (`press`) or leaves it unanswered: after the request's timeout
 * iTerm2 replies TIMEOUT, and the alert stays shown (no API closes it) until a button is pressed.
 */
import type {
  InvokeFunctionRequest,
  InvokeFunctionResponse
} from "../../../src/generated/iterm2/Iterm2Messages.js"

export interface FakeAlert {
  readonly title: string
  readonly subtitle: string
  readonly buttons: ReadonlyArray<string>
  readonly windowId: string | null
  /** Whether it is still on the screen (until a button is pressed). */
  shown: boolean
  /** Presses the button titled `title` (iTerm2 answers its index + 1000, if still waiting). */
  readonly press: (title: string) => void
}

/** Parses `name(arg: literal, …)`: the function name and its arguments (JSON literals). */
export const parseInvocation = (text: string): { name: string; args: Record<string, unknown> } | null => {
  const open = text.indexOf("(")
  if (open < 0 || !text.endsWith(")")) return null
  const name = text.slice(0, open).trim()
  const body = text.slice(open + 1, -1)
  const args: Record<string, unknown> = {}
  let i = 0
  while (i < body.length) {
    const colon = body.indexOf(":", i)
    if (colon < 0) return null
    const key = body.slice(i, colon).trim().replace(/^,\s*/, "")
    let j = colon + 1
    while (body[j] === " ") j++
    const start = j
    let depth = 0
    let inString = false
    for (; j < body.length; j++) {
      const c = body[j]!
      if (inString) {
        if (c === "\\") j++
        else if (c === '"') inString = false
      } else if (c === '"') inString = true
      else if (c === "[") depth++
      else if (c === "]") depth--
      else if (c === "," && depth === 0) break
    }
    try {
      args[key] = JSON.parse(body.slice(start, j))
    } catch {
      return null
    }
    i = j + 1
  }
  return { name, args }
}

export class FakeAlerts {
  readonly shown: Array<FakeAlert> = []
  private readonly waiters: Array<(alert: FakeAlert) => void> = []

  /** The next alert to be shown (or one already shown and unanswered). */
  next(): Promise<FakeAlert> {
    const open = this.shown.find((a) => a.shown)
    if (open !== undefined) return Promise.resolve(open)
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /** Answers an InvokeFunctionRequest as iTerm2 does; undefined for a function this fake does not know. */
  invoke(
    request: InvokeFunctionRequest,
    windowExists: (id: string) => boolean
  ): Promise<InvokeFunctionResponse> {
    const call = parseInvocation(request.invocation ?? "")
    if (call === null)
      return Promise.resolve({ error: { status: "REQUEST_MALFORMED", error_reason: "Syntax error" } })
    if (call.name !== "iterm2.alert")
      return Promise.resolve({ error: { status: "FAILED", error_reason: `No function named ${call.name}` } })
    const { title, subtitle, buttons, window_id } = call.args
    if (typeof title !== "string" || typeof subtitle !== "string" || !Array.isArray(buttons))
      return Promise.resolve({ error: { status: "FAILED", error_reason: "Bad arguments to iterm2.alert" } })
    const titles = buttons.filter((b): b is string => typeof b === "string")
    const shownButtons = titles.length === 0 ? ["OK"] : titles
    return new Promise((resolve) => {
      let waiting = true
      const timeoutSeconds = request.timeout ?? -1
      const timer =
        timeoutSeconds >= 0
          ? setTimeout(() => {
              waiting = false
              resolve({ error: { status: "TIMEOUT", error_reason: "Timeout" } })
            }, timeoutSeconds * 1000)
          : null
      const alert: FakeAlert = {
        title,
        subtitle,
        buttons: shownButtons,
        windowId: typeof window_id === "string" && windowExists(window_id) ? window_id : null,
        shown: true,
        press: (button) => {
          const index = shownButtons.indexOf(button)
          if (index < 0 || !alert.shown) throw new Error(`FakeAlerts: no button ${button} shown`)
          alert.shown = false
          if (timer !== null) clearTimeout(timer)
          if (waiting) resolve({ success: { json_result: String(1000 + index) } })
          waiting = false
        }
      }
      this.shown.push(alert)
      for (const waiter of this.waiters.splice(0)) waiter(alert)
    })
  }
}
