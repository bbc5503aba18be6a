/**
 * The tmux id form (strict: nothing tmux itself resolves as a target is an id) and the send
 * encoding (hex bytes, so no text can be read as a separator, flag, key name or format).
 */
import { describe, expect, it } from "vitest"
import { BYTES_PER_LINE, hexBytes, submitLines } from "../../src/domain/tmux/SendEncoding.js"
import { formatPaneId, parsePaneId } from "../../src/domain/tmux/TmuxId.js"

describe("TmuxId", () => {
  it("formats and parses the documented form, a socket path with ':' included", () => {
    const id = { socket: "/tmp/tmux-1000/default", pid: 4211, startTime: 1764576000, pane: 12 }
    expect(formatPaneId(id)).toBe("tmux:/tmp/tmux-1000/default:4211.1764576000:%12")
    expect(parsePaneId("tmux:/tmp/tmux-1000/default:4211.1764576000:%12")).toEqual(id)
    expect(parsePaneId("tmux:/tmp/a:b/sock:1.2:%0")).toEqual({
      socket: "/tmp/a:b/sock",
      pid: 1,
      startTime: 2,
      pane: 0
    })
  })

  it("refuses every other form", () => {
    for (const bad of [
      "%3",
      "work:1.0",
      "{last}",
      "!",
      "$0",
      "@1",
      "work",
      "tmux:%3",
      "tmux:relative/sock:1.2:%3",
      "tmux:/tmp/s:1.2:3",
      "tmux:/tmp/s:1:%3",
      "tmux:/tmp/s:1.2:%3 ",
      " tmux:/tmp/s:1.2:%3",
      "tmux:/tmp/s:1.2:%3\n",
      "tmux:/tmp/s:1.2:%{last}",
      "tmux:/tmp/s:-1.2:%3",
      "TMUX:/tmp/s:1.2:%3",
      // Leading zeros would name the canonical pane once parsed: only the canonical form is an id.
      "tmux:/tmp/s:1.2:%03",
      "tmux:/tmp/s:1.2:%00",
      "tmux:/tmp/s:01.2:%3",
      "tmux:/tmp/s:1.02:%3"
    ]) {
      expect(parsePaneId(bad), bad).toBeNull()
    }
  })
})

describe("SendEncoding", () => {
  it("sends UTF-8 bytes as hex, then Enter as its own command line", () => {
    expect(hexBytes(Buffer.from("a;é"))).toBe("61 3b c3 a9")
    expect(submitLines(7, "echo a;")).toEqual([
      "send-keys -H -t %7 65 63 68 6f 20 61 3b",
      "send-keys -t %7 Enter"
    ])
    // Nothing of the text survives as text in the control line.
    const [line] = submitLines(1, "#{pane_id} ; -n Enter $HOME ~ '\"")
    expect(line).toMatch(/^send-keys -H -t %1( [0-9a-f]{2})+$/)
  })

  it("splits long text into lines of at most BYTES_PER_LINE bytes, in order, without splitting a byte", () => {
    const text = "é".repeat(BYTES_PER_LINE) // 2 bytes each
    const lines = submitLines(3, text)
    expect(lines).toHaveLength(3)
    expect(lines.at(-1)).toBe("send-keys -t %3 Enter")
    const bytes = lines.slice(0, -1).flatMap((l) => l.replace("send-keys -H -t %3 ", "").split(" "))
    expect(lines.slice(0, -1).every((l) => l.split(" ").length - 4 <= BYTES_PER_LINE)).toBe(true)
    expect(Buffer.from(bytes.map((b) => Number.parseInt(b, 16))).toString("utf8")).toBe(text)
  })
})
