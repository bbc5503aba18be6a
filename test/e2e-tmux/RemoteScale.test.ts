/**
 * Eight hosts × 50 panes (issue 24: "list_sessions stays bounded: answer with the hosts that
 * answered, and name the ones that did not"). Eight loopback sshds WITH tmux (test/support/Sshd.ts:
 * 127.0.0.1, each its own host key, key-only, its own HOME and TMUX_TMPDIR), one per alias: the
 * transport reaches a host's DEFAULT tmux server (`ssh … tmux -C attach`, no socket option), so
 * each alias needs a login of its own to have a server of its own. Each remote server, started
 * over its ssh, holds 50 panes running `sleep 600` (light: no 400 shells). Two more aliases: one
 * at a port that accepts and never answers (a silent `net` server), one at a closed port. With
 * the default 5 s host timeout and the 15 s tool deadline, list_sessions returns all 400 remote
 * panes (and the local one) with unique ids, each the id of a pane that server really has, and
 * names exactly the two bad hosts in `unavailable`; the first listing (every control client
 * started over ssh, the silent host waited for up to its timeout) answers within 15 s, the next
 * (clients attached, the bad hosts in backoff or given at most the 1.5 s retry grace) within 3 s.
 * Everything the test started is stopped by pid.
 */
import { exec } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseTmuxHost } from "../../src/domain/tmux/TmuxHost.js"
import { typed } from "../support/E2eHelpers.js"
import { type RemoteHost, startRemoteHost } from "../support/Sshd.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"
import { TmuxWorld } from "../support/tmux/TmuxWorld.js"

const run = promisify(exec)
const HOSTS = 8
const PANES = 50
const HANG = "tp-scale-hang"
const CLOSED = "tp-scale-closed"

interface ScaleHost {
  readonly alias: string
  readonly far: TmuxWorld
  readonly sshd: RemoteHost
  /** The remote tmux server's pid, for the cleanup. */
  readonly serverPid: number
}

let rig: TmuxRig
let hosts: Array<ScaleHost> = []
let silent: Server
const held: Array<Socket> = []
let dir: string

const startScaleHost = async (alias: string): Promise<ScaleHost> => {
  const far = TmuxWorld.create({ defaultSocket: true })
  const sshd = await startRemoteHost({ tmux: { home: far.home, tmuxTmpdir: far.tmuxTmpdir } })
  // Started over ssh (the remote's default server), 1 + 49 windows of one `sleep 600` each.
  await run(
    `${sshd.sshBatch} 'tmux -f /dev/null new-session -d -s seed -x 80 -y 24 "exec sleep 600" && for i in $(seq 2 ${PANES}); do tmux new-window -d -t seed "exec sleep 600" || exit 1; done'`,
    { timeout: 30_000 }
  )
  const serverPid = Number((await far.tmux("display", "-p", "#{pid}")).trim())
  return { alias, far, sshd, serverPid }
}

/** A port nothing listens on (bound, then closed). */
const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

beforeAll(async () => {
  hosts = await Promise.all(Array.from({ length: HOSTS }, (_, i) => startScaleHost(`tp-scale-${i}`)))
  // Accepts, and then says nothing, ever: no ssh banner, no close.
  silent = createServer((socket) => {
    held.push(socket)
  })
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
  dir = mkdtempSync(join(tmpdir(), "tp-remote-scale-"))
  const config = join(dir, "ssh_config")
  const bad = (alias: string, port: number) =>
    [`Host ${alias}`, "  HostName 127.0.0.1", `  Port ${port}`, "  BatchMode yes", ""].join("\n")
  writeFileSync(
    config,
    [
      ...hosts.map((h) => readFileSync(h.sshd.sshConfig(h.alias), "utf8")),
      bad(HANG, (silent.address() as { port: number }).port),
      bad(CLOSED, await closedPort())
    ].join("\n")
  )
  rig = await openTmuxRig({
    hosts: [...hosts.map((h) => h.alias), HANG, CLOSED].map((alias) => parseTmuxHost(alias)!),
    sshConfig: config
  })
}, 60_000)

afterAll(async () => {
  await rig?.close()
  for (const socket of held) socket.destroy()
  await new Promise((resolve) => (silent === undefined ? resolve(undefined) : silent.close(resolve)))
  for (const host of hosts) {
    await host.far.close()
    // A server started over ssh is not the world's own: make sure it ended, by its pid.
    try {
      process.kill(host.serverPid, 0)
      process.kill(host.serverPid, "SIGKILL")
    } catch {
      // already gone
    }
    await host.sshd.stop()
  }
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

type Listing = {
  sessions: ReadonlyArray<{ session_id: string; hostname: string | null }>
  unavailable: ReadonlyArray<Record<string, unknown>>
}

const timedList = async () => {
  const started = Date.now()
  const list = await typed<Listing>(rig.mcp, "list_sessions", {})
  return { list, ms: Date.now() - started }
}

/** The ids TermPilot must give every pane of `host`'s remote server. */
const expectedIds = async (host: ScaleHost): Promise<ReadonlyArray<string>> =>
  (await host.far.tmux("list-panes", "-a", "-F", "#{pid}.#{start_time}:#{pane_id}"))
    .trim()
    .split("\n")
    .map((line) => `tmux@${host.alias}:default:${line}`)

describe("8 hosts × 50 panes, one host hanging and one refusing", () => {
  it("lists all 400 remote panes with unique ids and names the two bad hosts, within the deadline", async () => {
    const local = await rig.pane()
    const first = await timedList()
    expect(first.list.isError, JSON.stringify(first.list.data).slice(0, 500)).toBe(false)
    // Every control client started over ssh, the silent host waited for at most its 5 s timeout.
    expect(first.ms).toBeLessThan(15_000)

    const check = async ({ list }: Awaited<ReturnType<typeof timedList>>) => {
      const ids = list.data.sessions.map((s) => s.session_id)
      expect(new Set(ids).size).toBe(ids.length)
      expect(ids).toContain(local.id)
      for (const host of hosts) {
        const mine = ids.filter((id) => id.startsWith(`tmux@${host.alias}:`))
        expect(mine, `${host.alias}'s panes`).toHaveLength(PANES)
        expect([...mine].sort()).toEqual([...(await expectedIds(host))].sort())
      }
      expect(ids.filter((id) => id.startsWith("tmux@"))).toHaveLength(HOSTS * PANES)
      expect([...list.data.unavailable].map((u) => u.host).sort()).toEqual([CLOSED, HANG].sort())
      for (const u of list.data.unavailable)
        expect(u).toMatchObject({ backend: "tmux", error_code: "tmux_unavailable" })
    }
    await check(first)
    expect(held.length, "ssh connected to the silent port").toBeGreaterThan(0)

    // Clients attached: the eight hosts answer over them; the bad hosts are answered from their
    // last failure during their backoff, or waited for at most the 1.5 s retry grace once it lapses.
    // 3 s = that grace + a listing of 401 panes (tens of ms) with ample slack for a loaded machine.
    const second = await timedList()
    expect(second.ms).toBeLessThan(3_000)
    await check(second)
    console.log(
      `list_sessions, 8 hosts × ${PANES} panes + 2 bad: first ${first.ms} ms, second ${second.ms} ms`
    )
  })
})
