/**
 * Opt-in check against a REAL iTerm2 (macOS), for people who have one: TERMPILOT_LIVE_ITERM2=1.
 * It uses the server's own composition root and configuration (environment, config file), lists
 * the sessions, reads the focused one, and types nothing.
 */
import { describe, expect, it } from "vitest"
import { mainLive } from "../../src/layers/app/MainLive.js"
import { openMcpHarness } from "../support/McpHarness.js"

const live = process.env.TERMPILOT_LIVE_ITERM2 === "1"

describe.skipIf(!live)("live iTerm2 (TERMPILOT_LIVE_ITERM2=1)", () => {
  it("lists the sessions and reads the focused one, read-only", async () => {
    const harness = await openMcpHarness(mainLive({ readOnly: true }))
    try {
      const list = await harness.client.callTool({ name: "list_sessions", arguments: {} })
      expect(list.isError, JSON.stringify(list.structuredContent)).not.toBe(true)
      const sessions = (list.structuredContent as { sessions: ReadonlyArray<{ session_id: string }> })
        .sessions
      expect(sessions.length).toBeGreaterThan(0)
      const current = await harness.client.callTool({ name: "get_current_session", arguments: {} })
      const id = (current.structuredContent as { session_id?: string }).session_id
      expect(sessions.map((s) => s.session_id)).toContain(id)
      const read = await harness.client.callTool({
        name: "read_terminal",
        arguments: { session_id: id, max_lines: 20 }
      })
      expect(read.isError, JSON.stringify(read.structuredContent)).not.toBe(true)
    } finally {
      await harness.close()
    }
  })
})
