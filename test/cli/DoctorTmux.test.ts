/**
 * `termpilot doctor`'s tmux checks against a real tmux server on a private socket: version,
 * servers, a control client that attaches without resizing anything, and the panes without
 * TermPilot's shell integration named with the line to add. Automatic backends: a missing iTerm2
 * is skipped, and finding no terminal at all fails. Nothing is typed into any pane.
 */
import { execFileSync } from "node:child_process"
import { copyFileSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { doctorProgram } from "../../src/cli/DoctorCommand.js"
import type { BackendChoice } from "../../src/domain/BackendSelection.js"
import { BackendLive } from "../../src/layers/app/BackendLive.js"
import { appConfigFor, NO_TMUX } from "../support/AppConfigFixture.js"
import { fakeSettings } from "../support/FakeIterm2Backend.js"

const dir = mkdtempSync(join(tmpdir(), "tp-doctor-tmux-"))
const socket = join(dir, "tmux.sock")
const tmux = (...args: Array<string>) =>
  execFileSync("tmux", ["-S", socket, "-f", "/dev/null", ...args], { encoding: "utf8", timeout: 10_000 })

const runDoctor = (backends: BackendChoice, sockets: ReadonlyArray<string>) =>
  Effect.runPromise(
    doctorProgram.pipe(
      Effect.provide(
        Layer.mergeAll(BackendLive, NodeServices.layer).pipe(
          Layer.provideMerge(
            appConfigFor(fakeSettings(join(dir, "no-iterm2-socket")), {}, undefined, {
              backends,
              tmux: { ...NO_TMUX, sockets }
            })
          )
        )
      )
    )
  )

const statuses = (json: Readonly<Record<string, unknown>>) =>
  (json.checks as ReadonlyArray<{ name: string; status: string }>).map((c) => `${c.name}:${c.status}`)

const TMUX_ONLY: BackendChoice = { mode: "explicit", enabled: ["tmux"] }
const AUTO: BackendChoice = { mode: "auto", enabled: ["iterm2", "tmux"] }

describe("termpilot doctor (tmux)", () => {
  let with_: string
  let without: string

  beforeAll(async () => {
    tmux("new-session", "-d", "-s", "work", "-x", "100", "-y", "30", "bash --norc --noprofile")
    with_ = tmux("display", "-p", "-t", "work", "#{pane_id}").trim()
    tmux("set", "-p", "-t", with_, "@termpilot_tokens", " 0123456789abcdef:4242")
    without = tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "work", "zsh -f").trim()
    // Both shells have drawn their first prompt before any screen is compared (zsh can be slow to start).
    for (const pane of [with_, without]) {
      const deadline = Date.now() + 10_000
      while (tmux("capture-pane", "-p", "-t", pane).trim() === "" && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 25))
    }
  })
  afterAll(() => {
    try {
      tmux("kill-server")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("reports tmux, the server, the control client, and names the pane without integration", async () => {
    const before = tmux("list-windows", "-a", "-F", "#{window_id} #{window_width}x#{window_height}")
    const screens = [with_, without].map((p) => tmux("capture-pane", "-p", "-t", p))
    const outcome = await runDoctor(TMUX_ONLY, [socket])
    expect(statuses(outcome.json)).toEqual([
      "node:ok",
      "tmux:ok",
      "tmux_servers:ok",
      "tmux_control:ok",
      "tmux_shell_integration:warning"
    ])
    expect(outcome.exitCode).toBe(0)
    const text = outcome.out.join("\n")
    expect(text).toMatch(/tmux 3\.\d/)
    expect(text).toContain(`${socket} (1 session(s))`)
    expect(text).toContain("1 of 2 pane(s)")
    expect(text).toContain(
      `work:0.1 (${without}, zsh): run \`termpilot shell-integration zsh > ~/.termpilot-integration.zsh\`, then add \`source ~/.termpilot-integration.zsh\` at the end of ~/.zshrc`
    )
    expect(text).not.toContain(`(${with_},`)
    // Read-only: no window resized, nothing typed, and the control client is gone again.
    expect(tmux("list-windows", "-a", "-F", "#{window_id} #{window_width}x#{window_height}")).toBe(before)
    expect([with_, without].map((p) => tmux("capture-pane", "-p", "-t", p))).toEqual(screens)
    expect(tmux("list-clients", "-F", "#{client_name}").trim()).toBe("")
  })

  it("names a pane whose shell runs an integration older than this TermPilot (a token without a pid)", async () => {
    tmux("set", "-p", "-t", with_, "@termpilot_tokens", " 0123456789abcdef")
    try {
      const text = (await runDoctor(TMUX_ONLY, [socket])).out.join("\n")
      expect(text).toContain(`work:0.0 (${with_}, bash): its integration is older than this TermPilot`)
      expect(text).toContain("termpilot shell-integration bash")
    } finally {
      tmux("set", "-p", "-t", with_, "@termpilot_tokens", " 0123456789abcdef:4242")
    }
  })

  it("names a pane that runs ssh with the one line that installs the snippet on that host", async () => {
    // A stand-in ssh (bash under that name, which takes -c like ssh does): the doctor reads the
    // program and its argv from /proc.
    const fake = join(dir, "ssh")
    copyFileSync("/bin/bash", fake)
    const pane = tmux(
      "new-window",
      "-d",
      "-P",
      "-F",
      "#{pane_id}",
      "-t",
      "work",
      `exec '${fake}' -c 'sleep 100; :' build-box`
    ).trim()
    try {
      await expect.poll(() => tmux("display", "-p", "-t", pane, "#{pane_current_command}").trim()).toBe("ssh")
      const outcome = await runDoctor(TMUX_ONLY, [socket])
      expect(statuses(outcome.json)).toContain("tmux_remote_shells:warning")
      expect(outcome.out.join("\n")).toContain(
        `(${pane}): it runs ssh; for run_command in the shell there, load TermPilot's snippet on that host`
      )
      expect(outcome.out.join("\n")).toContain(
        "termpilot shell-integration bash | ssh build-box 'cat > ~/.termpilot-integration.bash"
      )
    } finally {
      tmux("kill-pane", "-t", pane)
    }
  })

  it("fails at tmux_servers when tmux is required and no server runs", async () => {
    const outcome = await runDoctor(TMUX_ONLY, [join(dir, "nobody-here")])
    expect(outcome.exitCode).toBe(1)
    expect(statuses(outcome.json)).toEqual([
      "node:ok",
      "tmux:ok",
      "tmux_servers:failed",
      "tmux_control:skipped",
      "tmux_shell_integration:skipped"
    ])
  })

  it("automatic backends: iTerm2 missing is skipped and tmux alone passes", async () => {
    const outcome = await runDoctor(AUTO, [socket])
    expect(outcome.exitCode).toBe(0)
    expect(statuses(outcome.json).slice(0, 3)).toEqual([
      "node:ok",
      "iterm2_socket:skipped",
      "iterm2_connection:skipped"
    ])
    expect(statuses(outcome.json)).toContain("tmux_servers:ok")
  })

  it("automatic backends with no terminal at all: one failed check says so", async () => {
    const outcome = await runDoctor(AUTO, [join(dir, "nobody-here")])
    expect(outcome.exitCode).toBe(1)
    expect(statuses(outcome.json).at(-1)).toBe("backends:failed")
    expect(statuses(outcome.json)).toContain("tmux_servers:warning")
  })
})
