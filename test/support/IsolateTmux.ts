/**
 * Setup for every test file: no test, and no termpilot a test spawns, may reach the machine's own
 * tmux servers. A test run started inside tmux inherits TMUX and TMUX_PANE (TermPilot would watch
 * that server); without TMUX_TMPDIR the default server is /tmp/tmux-<uid>/default. Both are taken
 * away here; tests that want tmux start their own server on a private socket, and any such server
 * a file leaves running is ended after the file.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { endLeftoverWorlds } from "./tmux/TmuxWorld.js"

delete process.env.TMUX
delete process.env.TMUX_PANE
delete process.env.TERMPILOT_TMUX_SOCKETS
// The tmux on PATH is the one every test (and .ci/run's version matrix) means.
delete process.env.TERMPILOT_TMUX
process.env.TMUX_TMPDIR = mkdtempSync(join(tmpdir(), "tp-no-default-tmux-"))

// A test file's tmux servers end with the file, even when a test failed before its own cleanup.
afterAll(() => {
  const ended = endLeftoverWorlds()
  if (ended > 0) console.error(`IsolateTmux: ended ${ended} tmux server(s) this file did not close`)
})
