/**
 * Backend choice and tmux server discovery from the environment and the config file, as the
 * `tmux` command itself would find its servers.
 */
import { Option, Result } from "effect"
import { describe, expect, it } from "vitest"
import {
  chooseBackends,
  defaultTmuxSocket,
  ownTmuxPane,
  parseBackendsEnv,
  socketFromTmuxEnv,
  tmuxSockets
} from "../../src/domain/BackendSelection.js"

describe("backend choice", () => {
  it("is automatic by default, with both backends", () => {
    expect(chooseBackends("auto", undefined)).toEqual({ mode: "auto", enabled: ["iterm2", "tmux"] })
  })

  it("TERMPILOT_BACKENDS wins over the config file", () => {
    expect(chooseBackends(["iterm2"], Result.getOrThrow(parseBackendsEnv(" tmux ")))).toEqual({
      mode: "explicit",
      enabled: ["tmux"]
    })
    expect(chooseBackends(["tmux"], Result.getOrThrow(parseBackendsEnv("AUTO"))).mode).toBe("auto")
  })

  it("parses lists, drops repeats, rejects unknown names", () => {
    expect(parseBackendsEnv("tmux,iterm2,tmux")).toEqual(Result.succeed(["tmux", "iterm2"]))
    expect(parseBackendsEnv("")).toEqual(Result.succeed(undefined))
    expect(parseBackendsEnv(undefined)).toEqual(Result.succeed(undefined))
    expect(Result.getFailure(parseBackendsEnv("screen"))).toEqual(
      Option.some(expect.stringMatching(/must be/))
    )
    expect(Result.isFailure(parseBackendsEnv("tmux,"))).toBe(true)
  })
})

describe("tmux sockets", () => {
  it("finds the default server like tmux: TMUX_TMPDIR, else /tmp, then tmux-<uid>/default", () => {
    expect(defaultTmuxSocket({}, 1000)).toBe("/tmp/tmux-1000/default")
    expect(defaultTmuxSocket({ TMUX_TMPDIR: "/run/user/7/" }, 7)).toBe("/run/user/7/tmux-7/default")
    // Only absolute paths name a socket.
    expect(defaultTmuxSocket({ TMUX_TMPDIR: "rel" }, 7)).toBe("/tmp/tmux-7/default")
  })

  it("takes the socket out of $TMUX, commas in the path included", () => {
    expect(socketFromTmuxEnv("/tmp/tmux-0/default,1234,0")).toBe("/tmp/tmux-0/default")
    expect(socketFromTmuxEnv("/tmp/a,b/sock,99,3")).toBe("/tmp/a,b/sock")
    expect(socketFromTmuxEnv("garbage")).toBeUndefined()
    expect(socketFromTmuxEnv(undefined)).toBeUndefined()
  })

  it("lists $TMUX's server, the default, TERMPILOT_TMUX_SOCKETS and the config's, without repeats", () => {
    const env = {
      HOME: "/home/u",
      TMUX: "/srv/inside,1,0",
      TERMPILOT_TMUX_SOCKETS: "/tmp/tmux-5/default:~/socks/work: :relative",
      TMUX_TMPDIR: undefined
    }
    expect(tmuxSockets(env, 5, ["/srv/inside", "~/socks/other"])).toEqual([
      "/srv/inside",
      "/tmp/tmux-5/default",
      "/home/u/socks/work",
      "/home/u/socks/other"
    ])
  })

  it("knows its own pane only with both $TMUX and a %N $TMUX_PANE", () => {
    expect(ownTmuxPane({ TMUX: "/tmp/s,1,0", TMUX_PANE: "%4" })).toEqual({ socket: "/tmp/s", pane: "%4" })
    expect(ownTmuxPane({ TMUX_PANE: "%4" })).toBeNull()
    expect(ownTmuxPane({ TMUX: "/tmp/s,1,0", TMUX_PANE: "4" })).toBeNull()
  })
})
