/**
 * `termpilot doctor` against the protocol-level fake iTerm2 (after its first line, the Node.js that
 * runs it): a missing socket, a refused handshake, and a healthy iTerm2 with one session lacking
 * shell integration — in process, and once through the built CLI with `--json`. The doctor never
 * types into a session.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { doctorProgram } from "../../src/cli/DoctorCommand.js"
import { BackendLive } from "../../src/layers/app/BackendLive.js"
import { FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import { FakeWorld } from "../fakes/iterm2/FakeWorld.js"
import { appConfigFor } from "../support/AppConfigFixture.js"
import { fakeSettings, linkHome } from "../support/FakeIterm2Backend.js"

const root = join(import.meta.dirname, "..", "..")
const bin = join(root, "dist/src/cli/bin.js")

const runDoctor = (socketPath: string) =>
  Effect.runPromise(
    doctorProgram.pipe(
      Effect.provide(
        Layer.mergeAll(BackendLive, NodeServices.layer).pipe(
          Layer.provideMerge(appConfigFor(fakeSettings(socketPath)))
        )
      )
    )
  )

const statuses = (json: Readonly<Record<string, unknown>>) =>
  (json.checks as ReadonlyArray<{ name: string; status: string }>).map((c) => `${c.name}:${c.status}`)

describe("termpilot doctor", () => {
  let world: FakeWorld
  let server: FakeIterm2Server
  let plain: string
  let bare: string

  beforeAll(async () => {
    world = new FakeWorld()
    server = await FakeIterm2Server.start({ handler: world.handler, allowAll: true })
    plain = (await world.createWindow({ integration: true, title: "with" })).sessionId
    bare = (await world.createWindow({ integration: false, title: "without" })).sessionId
  })
  afterAll(async () => {
    await server?.close()
    await world?.dispose()
  })

  it("fails at the socket check, with the enable-API remedy, when iTerm2's socket is absent", async () => {
    const outcome = await runDoctor(join(mkdtempSync(join(tmpdir(), "tp-doctor-")), "socket"))
    expect(outcome.exitCode).toBe(1)
    expect(statuses(outcome.json)).toEqual([
      "node:ok",
      "iterm2_socket:failed",
      "iterm2_connection:skipped",
      "sessions:skipped",
      "shell_integration:skipped"
    ])
    expect(outcome.out.join("\n")).toContain("Enable Python API")
  })

  it("reports a refused handshake as a failed connection with an auth remedy", async () => {
    server.rejectNextHandshake(401)
    const outcome = await runDoctor(server.socketPath)
    expect(outcome.exitCode).toBe(1)
    expect(statuses(outcome.json).slice(0, 3)).toEqual([
      "node:ok",
      "iterm2_socket:ok",
      "iterm2_connection:failed"
    ])
    expect(outcome.out.join("\n")).toMatch(/Allow all apps to connect/)
  })

  it("counts the sessions and names the one without shell integration, sending nothing", async () => {
    const before = world.ledger.size
    const outcome = await runDoctor(server.socketPath)
    expect(outcome.exitCode).toBe(0)
    expect(statuses(outcome.json)).toEqual([
      "node:ok",
      "iterm2_socket:ok",
      "iterm2_connection:ok",
      "sessions:ok",
      "shell_integration:warning"
    ])
    const text = outcome.out.join("\n")
    expect(text).toContain(`[ok]       Node.js: Node.js ${process.version} (${process.execPath})`)
    expect(text).toContain("2 session(s) open")
    expect(text).toContain(bare)
    expect(text).not.toContain(plain)
    expect(text).toContain("Approvals: approval policy 'never'")
    expect(world.ledger.size).toBe(before)
  })

  it("prints the structured report with --json from the built CLI, naming the approval policy in force", async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npx tsc -p tsconfig.build.json\` first`)
    const home = join(mkdtempSync(join(tmpdir(), "tp-doctor-home-")), "home")
    linkHome(server, home)
    // Asynchronous on purpose: the fake iTerm2 answers from this very process.
    const result = await promisify(execFile)(process.execPath, [bin, "doctor", "--json"], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        TERMPILOT_OSASCRIPT: "/nonexistent/osascript",
        TERMPILOT_APPROVAL: "risky",
        // Automatic backends: never look at this machine's own tmux servers.
        TMUX_TMPDIR: mkdtempSync(join(tmpdir(), "tp-doctor-tmux-"))
      },
      encoding: "utf8",
      timeout: 30_000
    })
    const report = JSON.parse(result.stdout) as Record<string, unknown>
    expect(report.ok).toBe(true)
    expect(statuses(report)).toContain("sessions:ok")
    expect(report.approval).toMatchObject({ policy: "risky", askIn: "auto" })
  })
})
