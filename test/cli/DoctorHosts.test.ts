/**
 * `termpilot doctor`'s checks of tmux on other hosts, against real ssh: the loopback sshd WITH tmux
 * (test/support/Sshd.ts: 127.0.0.1, its own host key, key-only) reached as an alias of an ssh_config
 * the test wrote (`ssh -F`), next to an alias whose port has nothing listening (unreachable) and
 * one whose port accepts and never says a word (a host that hangs). Each host gets its own lines:
 * reachable, tmux version, a server, the snippet, each with its fix; the unreachable and hanging
 * ones fail at reachable within the host timeout, their other checks skipped. The remote tmux
 * server is started over ssh under its own HOME and TMUX_TMPDIR and ended with kill-server; the
 * doctor types nothing there and sets no option.
 */
import { execSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { doctorProgram } from "../../src/cli/DoctorCommand.js"
import { parseTmuxHost } from "../../src/domain/tmux/TmuxHost.js"
import { BackendLive } from "../../src/layers/app/BackendLive.js"
import { appConfigFor, NO_TMUX } from "../support/AppConfigFixture.js"
import { fakeSettings } from "../support/FakeIterm2Backend.js"
import { type RemoteHost, startRemoteHost } from "../support/Sshd.js"
import { TmuxWorld } from "../support/tmux/TmuxWorld.js"

const UP = "tp-doc-up"
const DOWN = "tp-doc-down"
const HANG = "tp-doc-hang"
const TIMEOUT_MS = 3_000

const dir = mkdtempSync(join(tmpdir(), "tp-doctor-hosts-"))
let remote: RemoteHost
let far: TmuxWorld
let sshConfig: string
let silent: Server
const held: Array<Socket> = []

/** A port with nothing listening: bound, then closed again. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

beforeAll(async () => {
  far = TmuxWorld.create({ defaultSocket: true })
  remote = await startRemoteHost({ tmux: { home: far.home, tmuxTmpdir: far.tmuxTmpdir } })
  silent = createServer((socket) => {
    held.push(socket)
  })
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
  const hangPort = (silent.address() as { port: number }).port
  const downPort = await closedPort()
  sshConfig = join(dir, "ssh_config")
  writeFileSync(
    sshConfig,
    [
      readFileSync(remote.sshConfig(UP), "utf8"),
      `Host ${DOWN}`,
      "  HostName 127.0.0.1",
      `  Port ${downPort}`,
      `Host ${HANG}`,
      "  HostName 127.0.0.1",
      `  Port ${hangPort}`,
      ""
    ].join("\n")
  )
}, 60_000)

afterAll(async () => {
  for (const socket of held) socket.destroy()
  await new Promise((resolve) => silent?.close(resolve))
  await far?.close()
  await remote?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const runDoctor = (hosts: ReadonlyArray<string>) =>
  Effect.runPromise(
    doctorProgram.pipe(
      Effect.provide(
        Layer.mergeAll(BackendLive, NodeServices.layer).pipe(
          Layer.provideMerge(
            appConfigFor(fakeSettings(join(dir, "no-iterm2-socket")), {}, undefined, {
              backends: { mode: "explicit", enabled: ["tmux"] },
              tmux: {
                ...NO_TMUX,
                sockets: [join(dir, "no-local-server")],
                commandTimeoutMs: TIMEOUT_MS,
                hosts: hosts.map((h) => parseTmuxHost(h)!),
                sshConfig
              }
            })
          )
        )
      )
    )
  )

type Row = { name: string; status: string; detail: string; remedy: string | null }
const rows = (json: Readonly<Record<string, unknown>>) =>
  (json.checks as ReadonlyArray<Row>).filter((c) => c.name.startsWith("tmux_host_"))
const statuses = (json: Readonly<Record<string, unknown>>) => rows(json).map((c) => `${c.name}:${c.status}`)

describe("termpilot doctor (tmux on other hosts)", () => {
  it("a reachable host with no tmux server: reachable, its version, and how to start one", async () => {
    const outcome = await runDoctor([UP])
    expect(statuses(outcome.json)).toEqual([
      "tmux_host_reachable:ok",
      "tmux_host_version:ok",
      "tmux_host_server:warning",
      "tmux_host_snippet:skipped"
    ])
    const text = outcome.out.join("\n")
    expect(text).toMatch(new RegExp(`tmux host version: ${UP}: tmux \\d`))
    expect(text).toContain(`${UP}: no tmux server is running there`)
    expect(text).toContain("tmux new -s work")
    expect(text).toContain("the configured hosts are checked below, over ssh")
    // No local server but a host configured: the local line is a warning, and the report passes.
    expect((outcome.json.checks as ReadonlyArray<Row>).find((c) => c.name === "tmux_servers")?.status).toBe(
      "warning"
    )
    expect(outcome.exitCode).toBe(0)
  })

  it("a server whose panes lack the snippet: the one line that installs it; announced: ok", async () => {
    execSync(
      `${remote.sshBatch} 'tmux -f /dev/null new-session -d -s work -x 100 -y 30 "exec sleep 100000"'`,
      { timeout: 20_000, stdio: "ignore" }
    )
    let outcome = await runDoctor([UP])
    expect(statuses(outcome.json)).toEqual([
      "tmux_host_reachable:ok",
      "tmux_host_version:ok",
      "tmux_host_server:ok",
      "tmux_host_snippet:warning"
    ])
    const snippet = rows(outcome.json).at(-1)!
    expect(snippet.detail).toContain(`${UP}: no pane announces TermPilot's snippet`)
    expect(snippet.remedy).toContain(
      `termpilot shell-integration bash | ssh -F ${sshConfig} ${UP} 'cat > ~/.termpilot-integration.bash`
    )
    // Read-only: the doctor set no option there.
    expect(await far.tmux("show", "-p", "-t", "work")).not.toContain("@termpilot")

    await far.tmux("set", "-p", "-t", "work", "@termpilot_tokens", " 0123456789abcdef:4242")
    outcome = await runDoctor([UP])
    expect(statuses(outcome.json).at(-1)).toBe("tmux_host_snippet:ok")
    expect(outcome.out.join("\n")).toContain(`${UP}: all 1 pane(s) announce TermPilot's snippet`)
    expect(outcome.exitCode).toBe(0)
  })

  it("an unreachable host and one that hangs fail at reachable within the host timeout; the other host is still checked", async () => {
    const started = Date.now()
    const outcome = await runDoctor([DOWN, HANG, UP])
    const elapsed = Date.now() - started
    expect(statuses(outcome.json)).toEqual([
      "tmux_host_reachable:failed",
      "tmux_host_version:skipped",
      "tmux_host_server:skipped",
      "tmux_host_snippet:skipped",
      "tmux_host_reachable:failed",
      "tmux_host_version:skipped",
      "tmux_host_server:skipped",
      "tmux_host_snippet:skipped",
      "tmux_host_reachable:ok",
      "tmux_host_version:ok",
      "tmux_host_server:ok",
      "tmux_host_snippet:ok"
    ])
    const [down, , , , hang] = rows(outcome.json)
    expect(down!.detail).toMatch(new RegExp(`^${DOWN}: ssh failed: .*(refused|closed)`, "i"))
    expect(down!.remedy).toContain(`ssh -F ${sshConfig} ${DOWN} true`)
    expect(hang!.detail).toMatch(
      new RegExp(`^${HANG}: (no answer over ssh within 3 s|ssh failed: .*timed out)`)
    )
    expect(held.length).toBeGreaterThan(0)
    // The hosts are checked at once, each bounded by the host timeout.
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 3_000)
    expect(outcome.exitCode).toBe(1)
  })
})
