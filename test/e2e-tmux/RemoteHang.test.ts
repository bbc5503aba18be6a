import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseTmuxHost } from "../../src/domain/tmux/TmuxHost.js"
import { runCommand, typed } from "../support/E2eHelpers.js"
import type { RemoteHost } from "../support/Sshd.js"
import { remotePane, startTmuxHost, stopTmuxHost, type TmuxHostFixture } from "../support/tmux/RemoteHosts.js"
import { openTmuxRig, type TmuxRig } from "../support/tmux/TmuxRig.js"

const UP = "tp-up"
const HANG = "tp-hang"
let rig: TmuxRig
let remote: RemoteHost
let host: TmuxHostFixture
let silent: Server
let dir: string
const held: Array<Socket> = []

beforeAll(async () => {
  host = await startTmuxHost(UP)
  remote = host.sshd
  // Accepts, and then says nothing, ever: no ssh banner, no close.
  silent = createServer((socket) => {
    held.push(socket)
  })
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
  dir = mkdtempSync(join(tmpdir(), "tp-remote-hang-"))
  const config = join(dir, "ssh_config")
  writeFileSync(
    config,
    [
      readFileSync(remote.sshConfig(UP), "utf8"),
      `Host ${HANG}`,
      "  HostName 127.0.0.1",
      `  Port ${(silent.address() as { port: number }).port}`,
      "  BatchMode yes",
      ""
    ].join("\n")
  )
  rig = await openTmuxRig({ hosts: [parseTmuxHost(HANG)!, parseTmuxHost(UP)!], sshConfig: config })
}, 60_000)

afterAll(async () => {
  await rig?.close()
  for (const socket of held) socket.destroy()
  await new Promise((resolve) => silent?.close(resolve))
  await stopTmuxHost(host)
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

type Listing = {
  sessions: ReadonlyArray<{ session_id: string }>
  unavailable: ReadonlyArray<Record<string, unknown>>
}

const timedList = async () => {
  const started = Date.now()
  const list = await typed<Listing>(rig.mcp, "list_sessions", {})
  return { list, ms: Date.now() - started }
}

describe("a host that hangs (accepts TCP, never answers)", () => {
  it("is listed in unavailable while every other source answers within the per-call deadline", async () => {
    const local = await rig.pane()
    const pane = await remotePane(rig.mcp, host)

    // The host's backoff may have lapsed while the panes were set up: this listing waits for it
    // again, at most the host timeout.
    const { list, ms } = await timedList()
    expect(list.isError).toBe(false)
    expect(ms).toBeLessThan(8_000)
    expect(list.data.unavailable).toEqual([
      expect.objectContaining({ backend: "tmux", host: HANG, error_code: "tmux_unavailable" })
    ])
    const ids = list.data.sessions.map((s) => s.session_id)
    expect(ids).toContain(local.id)
    expect(ids).toContain(pane.id)
    expect(held.length, "ssh connected to the silent port").toBeGreaterThan(0)

    // Within the backoff the hanging host is answered from its last failure, without waiting.
    const again = await timedList()
    expect(again.list.data.unavailable).toHaveLength(1)
    expect(again.ms).toBeLessThan(2_000)

    // The other sources' tools answer meanwhile.
    const ran = await runCommand(rig.mcp, {
      session_id: pane.id,
      command: "echo still-here",
      timeout_seconds: 10
    })
    expect(ran.data).toMatchObject({ status: "completed", exit_code: 0, output: "still-here" })
    const localRun = await runCommand(rig.mcp, {
      session_id: local.id,
      command: "echo local",
      timeout_seconds: 10
    })
    expect(localRun.data).toMatchObject({ status: "completed", exit_code: 0, output: "local" })

    // Once the backoff lapses, a listing starts the retry but waits for it only a short grace
    // (1.5 s), then answers with the host's last failure while the retry goes on by itself.
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    const later = await timedList()
    expect(later.ms).toBeLessThan(3_000)
    expect(later.list.data.unavailable).toEqual([expect.objectContaining({ host: HANG })])
    expect(later.list.data.sessions.map((s) => s.session_id)).toEqual(
      expect.arrayContaining([local.id, pane.id])
    )
  })
})
