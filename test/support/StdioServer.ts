/**
 * StdioServer — a built termpilot started as an MCP client starts it: its environment (the test
 * process's, less anything that would point it at the machine's own terminals or tune Node), and
 * the SDK's StdioClientTransport spawning it with its stderr collected.
 */
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import type { TmuxWorld } from "./tmux/TmuxWorld.js"

/** The test process's environment without iTerm2, TermPilot and tmux variables, and no Node tuning. */
export const inheritedEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(ITERM|TERMPILOT|TMUX|NODE_OPTIONS|NODE_V8|VITEST)/.test(k)) env[k] = v
  }
  return env
}

/** A termpilot environment that sees only `world`'s private tmux server (and its HOME). */
export const tmuxWorldEnv = (world: TmuxWorld): Record<string, string> => ({
  ...inheritedEnv(),
  HOME: world.home,
  TMUX_TMPDIR: world.tmuxTmpdir,
  TERMPILOT_BACKENDS: "tmux",
  TERMPILOT_TMUX_SOCKETS: world.socket,
  NO_COLOR: "1"
})

/** The transport that spawns `node <bin> ...args` with `env`; `stderr()` is what it wrote there so far. */
export const stdioTransport = (
  bin: string,
  env: Record<string, string>,
  args: ReadonlyArray<string> = []
) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...args],
    env,
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  return { transport, stderr: () => stderr }
}
