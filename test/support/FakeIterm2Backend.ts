/**
 * End-to-end rig: the protocol-level fake iTerm2 (real bash sessions in PTYs) behind its real
 * unix-socket WebSocket server, and TermPilot's real backend layers (Iterm2ConnectionLive →
 * Iterm2Terminal/PromptTracker → CommandRunnerLive) pointed at it, served to a real MCP client.
 */
import { mkdirSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { Option } from "effect"
import type { TermPilotConfig } from "../../src/domain/ConfigFile.js"
import { mainLayerWith } from "../../src/layers/app/MainLive.js"
import type { Iterm2Settings } from "../../src/services/AppConfig.js"
import type { ServerOptions } from "../../src/tools/Server.js"
import { FakeIterm2Server } from "../fakes/iterm2/FakeIterm2Server.js"
import { FakeWorld, type FakeWorldOptions } from "../fakes/iterm2/FakeWorld.js"
import { appConfigFor } from "./AppConfigFixture.js"
import { type ElicitHandler, type McpHarness, openMcpHarness } from "./McpHarness.js"

export interface FakeIterm2Rig {
  readonly world: FakeWorld
  readonly server: FakeIterm2Server
  readonly mcp: McpHarness
  /** A HOME whose iTerm2 socket path leads to the fake (for spawning the built CLI). */
  readonly home: string
  readonly close: () => Promise<void>
}

export const fakeSettings = (
  socketPath: string,
  overrides: Partial<Iterm2Settings> = {}
): Iterm2Settings => ({
  socketPath,
  cookie: Option.none(),
  key: Option.none(),
  osascript: "/nonexistent/osascript",
  appName: "iTerm2",
  requestTimeoutMs: 5_000,
  connectTimeoutMs: 5_000,
  ...overrides
})

/** Links `<home>/Library/Application Support/iTerm2/private/socket` to the fake's socket. */
export const linkHome = (server: FakeIterm2Server, home: string): void => {
  const dir = join(home, "Library", "Application Support", "iTerm2", "private")
  mkdirSync(dir, { recursive: true })
  symlinkSync(server.socketPath, join(dir, "socket"))
}

export const openFakeIterm2Rig = async (
  options: {
    readonly world?: FakeWorldOptions
    readonly settings?: Partial<Iterm2Settings>
    /** Where the audit trail goes (with config.audit.enabled); none by default. */
    readonly auditPath?: string
    /** Config-file settings (read-only mode, redaction, policy…). */
    readonly config?: Partial<TermPilotConfig>
    readonly server?: ServerOptions
    /** The test client's elicitation handler (it declares the capability only with one). */
    readonly elicit?: ElicitHandler
  } = {}
): Promise<FakeIterm2Rig> => {
  const world = new FakeWorld(options.world)
  const server = await FakeIterm2Server.start({ handler: world.handler, allowAll: true })
  const config = appConfigFor(
    fakeSettings(server.socketPath, options.settings),
    options.config,
    options.auditPath
  )
  const mcp = await openMcpHarness(mainLayerWith(config), options.server, options.elicit)
  const home = join(server.dir, "home")
  linkHome(server, home)
  return {
    world,
    server,
    mcp,
    home,
    close: async () => {
      await mcp.close()
      await server.close()
      await world.dispose()
    }
  }
}

/** The structured result of a tool call, with its error flag. */
export const call = async (
  mcp: McpHarness,
  name: string,
  args: Record<string, unknown> = {}
): Promise<{ readonly isError: boolean; readonly data: Record<string, unknown> }> => {
  const result = await mcp.client.callTool({ name, arguments: args })
  return {
    isError: result.isError === true,
    data: (result.structuredContent ?? {}) as Record<string, unknown>
  }
}
