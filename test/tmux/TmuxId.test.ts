/**
 * The tmux id form (strict: nothing tmux itself resolves as a target is an id) and the send
 * encoding (hex bytes, so no text can be read as a separator, flag, key name or format).
 */

import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { BYTES_PER_LINE, hexBytes, submitLines } from "../../src/domain/tmux/SendEncoding.js"
import { parseTmuxHost, parseTmuxHostsEnv } from "../../src/domain/tmux/TmuxHost.js"
import { formatPaneId, parsePaneId } from "../../src/domain/tmux/TmuxId.js"
import { shellQuote, sshTransport } from "../../src/layers/backends/tmux/Transport.js"

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

describe("TmuxId of a tmux server on another host", () => {
  it("names the host: formats and parses [user@]host[:port] with the remote socket or default", () => {
    const id = { host: "deploy@db-1:2222", socket: "default", pid: 7, startTime: 1764576000, pane: 3 }
    expect(formatPaneId(id)).toBe("tmux@deploy@db-1:2222:default:7.1764576000:%3")
    expect(parsePaneId("tmux@deploy@db-1:2222:default:7.1764576000:%3")).toEqual(id)
    expect(parsePaneId("tmux@build-box:default:1.2:%0")).toEqual({
      host: "build-box",
      socket: "default",
      pid: 1,
      startTime: 2,
      pane: 0
    })
    expect(parsePaneId("tmux@h:22:/tmp/a:b:1.2:%5")).toEqual({
      host: "h:22",
      socket: "/tmp/a:b",
      pid: 1,
      startTime: 2,
      pane: 5
    })
    // Never the same id as a local pane's.
    expect(formatPaneId({ ...id, host: "h" })).not.toBe(
      formatPaneId({ socket: "default", pid: 7, startTime: 1764576000, pane: 3 })
    )
  })

  it("refuses every other remote form", () => {
    for (const bad of [
      "tmux@:default:1.2:%3",
      "tmux@-oProxyCommand=x:default:1.2:%3",
      "tmux@h:default:1.2:3",
      "tmux@h:relative:1.2:%3",
      "tmux@h:0:default:1.2:%3",
      "tmux@h:65536:default:1.2:%3",
      "tmux@h:022:default:1.2:%3",
      "tmux@a@b@h:default:1.2:%3",
      "tmux@h h:default:1.2:%3",
      "tmux@[::1]:default:1.2:%3",
      "tmux@h:default:01.2:%3",
      "tmux@h:default:1.2:%03",
      "tmux@h:default:1.2:%3\n",
      "TMUX@h:default:1.2:%3"
    ]) {
      expect(parsePaneId(bad), bad).toBeNull()
    }
  })
})

describe("TmuxHost", () => {
  it("parses [user@]host[:port] strictly", () => {
    expect(parseTmuxHost("build-box")).toEqual({
      user: null,
      host: "build-box",
      port: null,
      spec: "build-box"
    })
    expect(parseTmuxHost("deploy@db-1:2222")).toEqual({
      user: "deploy",
      host: "db-1",
      port: 2222,
      spec: "deploy@db-1:2222"
    })
    for (const bad of [
      "",
      "-oProxyCommand=x",
      "a b",
      "h:0",
      "h:65536",
      "h:022",
      "ssh://h",
      "u@",
      "@h",
      "[::1]",
      "h;x"
    ])
      expect(parseTmuxHost(bad), bad).toBeNull()
  })

  it("TERMPILOT_TMUX_HOSTS: comma-separated, every entry a host, repeats once", () => {
    expect(
      Result.getOrThrow(parseTmuxHostsEnv("build-box, deploy@db-1:2222,build-box")).map((h) => h.spec)
    ).toEqual(["build-box", "deploy@db-1:2222"])
    expect(Result.getOrThrow(parseTmuxHostsEnv(undefined))).toEqual([])
    expect(Result.isFailure(parseTmuxHostsEnv("build-box,,x"))).toBe(true)
    expect(Result.isFailure(parseTmuxHostsEnv("-oProxyCommand=touch /tmp/x"))).toBe(true)
  })

  it("runs tmux over ssh in batch mode, the remote command one quoted line", () => {
    const host = parseTmuxHost("deploy@db-1:2222")!
    const transport = sshTransport(host, { sshPath: "ssh", sshConfig: "/cfg", connectTimeoutMs: 5_000 })
    const { file, args } = transport.command([
      "-N",
      "list-sessions",
      "-F",
      "#{session_activity} #{session_id}",
      "-t",
      "$3"
    ])
    expect(file).toBe("ssh")
    expect(args.slice(0, 3)).toEqual(["-T", "-o", "BatchMode=yes"])
    expect(args).toContain("ConnectTimeout=5")
    expect(args.slice(-8, -2)).toEqual(["-F", "/cfg", "-p", "2222", "-l", "deploy"])
    expect(args.at(-2)).toBe("db-1")
    expect(args.at(-1)).toBe("tmux '-N' list-sessions '-F' '#{session_activity} #{session_id}' '-t' '$3'")
    expect(shellQuote("it's")).toBe(`'it'\\''s'`)
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
