/**
 * TmuxRig — the tmux end-to-end rig: one or more private tmux worlds (servers) and TermPilot's
 * real layers (mainLayerWith over AppConfigFixture, backends tmux — optionally with the fake
 * iTerm2 too) served to the SDK's real MCP client. `pane` opens a window in the world's main
 * session and waits until TermPilot reports the readiness its shell should have.
 */
import { join } from "node:path"
import type { BackendChoice } from "../../../src/domain/BackendSelection.js"
import type { TermPilotConfig } from "../../../src/domain/ConfigFile.js"
import type { TmuxHost } from "../../../src/domain/tmux/TmuxHost.js"
import { mainLayerWith } from "../../../src/layers/app/MainLive.js"
import type { TmuxSettings } from "../../../src/services/AppConfig.js"
import { FakeIterm2Server } from "../../fakes/iterm2/FakeIterm2Server.js"
import { FakeWorld } from "../../fakes/iterm2/FakeWorld.js"
import { appConfigFor } from "../AppConfigFixture.js"
import { readTerminal } from "../E2eHelpers.js"
import { fakeSettings } from "../FakeIterm2Backend.js"
import { type ElicitHandler, type McpHarness, openMcpHarness } from "../McpHarness.js"
import { waitUntil } from "./Recorder.js"
import { type PaneOptions, TmuxWorld, type WorldPane } from "./TmuxWorld.js"

export const MAIN_SESSION = "main"

export interface RigPane extends WorldPane {
  /** TermPilot's session id of the pane. */
  readonly id: string
}

export interface TmuxRig {
  /** The first world; `worlds` has every server the rig's TermPilot looks at. */
  readonly world: TmuxWorld
  readonly worlds: ReadonlyArray<TmuxWorld>
  readonly mcp: McpHarness
  /** The fake iTerm2 and its API socket, when the rig runs both backends. */
  readonly iterm2: FakeWorld | null
  readonly iterm2SocketPath: string | null
  /** A new window in `session` of `world` (its first window when the session is new), ready. */
  readonly pane: (
    options?: PaneOptions & { readonly session?: string; readonly world?: TmuxWorld }
  ) => Promise<RigPane>
  /** Closes the MCP client and TermPilot's layers (once), leaving the tmux worlds running. */
  readonly closeTermPilot: () => Promise<void>
  readonly close: () => Promise<void>
}

export interface TmuxRigOptions {
  /** How many tmux servers (worlds); 1 by default. */
  readonly servers?: number
  /** Worlds already running (panes opened before TermPilot starts), instead of new ones. */
  readonly worlds?: ReadonlyArray<TmuxWorld>
  /** Serve the fake iTerm2 too (backends iterm2 + tmux). */
  readonly withIterm2?: boolean
  readonly config?: Partial<TermPilotConfig>
  /** Where the audit trail goes (with config.audit.enabled); none by default. */
  readonly auditPath?: string
  /** The test client's elicitation handler (it declares the capability only with one). */
  readonly elicit?: ElicitHandler
  /** Hosts whose tmux TermPilot reaches over ssh, and the ssh_config it uses (`ssh -F`). */
  readonly hosts?: ReadonlyArray<TmuxHost>
  readonly sshConfig?: string
}

export const tmuxSettingsFor = (worlds: ReadonlyArray<TmuxWorld>): TmuxSettings => ({
  sockets: worlds.map((world) => world.socket),
  tmuxPath: "tmux",
  ownPane: null,
  commandTimeoutMs: 5_000
})

/** Readiness a freshly started shell of each kind should be reported with. */
const settledReadiness = (options: PaneOptions): string =>
  options.shell === "plain" || options.shell === "plain-fish" ? "shell_integration_required" : "ready"

/**
 * Polls read_terminal until the pane reports `expected`. A prompt drawn before TermPilot watched
 * the pane is `unknown` by design ("press Enter in the pane"): the person at the pane does that.
 */
export const settle = async (mcp: McpHarness, pane: RigPane, expected: string, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs
  let last = "(none)"
  let unknownSince: number | null = null
  while (Date.now() < deadline) {
    const read = await readTerminal(mcp, { session_id: pane.id, max_lines: 1 })
    last = read.isError ? JSON.stringify(read.data) : read.data.execution_readiness
    if (last === expected) return
    unknownSince = last === "unknown" ? (unknownSince ?? Date.now()) : null
    if (unknownSince !== null && Date.now() - unknownSince > 500) {
      // Press Enter once, and let the shell draw its next prompt before looking again, so no
      // Enter is still on its way when the pane is handed to the test.
      const prompts = pane.files.prompts()
      await pane.world.press(pane, "Enter")
      await waitUntil(`${pane.paneId} to draw a prompt after Enter`, () => pane.files.prompts() > prompts)
      unknownSince = null
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${pane.id} did not become ${expected} within ${timeoutMs} ms (last: ${last})`)
}

export const openTmuxRig = async (options: TmuxRigOptions = {}): Promise<TmuxRig> => {
  const worlds = options.worlds ?? Array.from({ length: options.servers ?? 1 }, () => TmuxWorld.create())
  const first = worlds[0]!
  // Anything that would look for a default tmux server finds the world's, never the machine's.
  process.env.TMUX_TMPDIR = first.tmuxTmpdir
  delete process.env.TMUX
  delete process.env.TMUX_PANE
  const iterm2 = options.withIterm2 === true ? new FakeWorld() : null
  const iterm2Server =
    iterm2 === null ? null : await FakeIterm2Server.start({ handler: iterm2.handler, allowAll: true })
  const backends: BackendChoice = {
    mode: "explicit",
    enabled: iterm2 === null ? ["tmux"] : ["iterm2", "tmux"]
  }
  const config = appConfigFor(
    fakeSettings(iterm2Server?.socketPath ?? join(first.root, "no-iterm2-socket")),
    options.config,
    options.auditPath,
    {
      tmux: {
        ...tmuxSettingsFor(worlds),
        ...(options.hosts === undefined ? {} : { hosts: options.hosts, sshConfig: options.sshConfig ?? null })
      },
      backends
    }
  )
  const mcp = await openMcpHarness(mainLayerWith(config), {}, options.elicit)
  let closing: Promise<void> | undefined
  const closeTermPilot = () => {
    closing ??= mcp.close()
    return closing
  }
  return {
    world: first,
    worlds,
    mcp,
    iterm2,
    iterm2SocketPath: iterm2Server?.socketPath ?? null,
    pane: async (paneOptions = {}) => {
      const world = paneOptions.world ?? first
      const session = paneOptions.session ?? MAIN_SESSION
      const created = (await world.hasSession(session))
        ? await world.newWindow(session, paneOptions)
        : await world.newSession(session, paneOptions)
      const pane: RigPane = { ...created, id: await world.sessionId(created) }
      await settle(mcp, pane, settledReadiness(paneOptions))
      return pane
    },
    closeTermPilot,
    close: async () => {
      await closeTermPilot()
      await iterm2Server?.close()
      await iterm2?.dispose()
      for (const world of worlds) await world.close()
    }
  }
}
