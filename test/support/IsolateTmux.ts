/**
 * Setup for every test file: no test, and no termpilot a test spawns, may reach the machine's own
 * tmux servers. A test run started inside tmux inherits TMUX and TMUX_PANE (TermPilot would watch
 * that server); without TMUX_TMPDIR the default server is /tmp/tmux-<uid>/default. Both are taken
 * away here; tests that want tmux start their own server on a private socket.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

delete process.env.TMUX
delete process.env.TMUX_PANE
delete process.env.TERMPILOT_TMUX_SOCKETS
// The tmux on PATH is the one every test (and .ci/run's version matrix) means.
delete process.env.TERMPILOT_TMUX
process.env.TMUX_TMPDIR = mkdtempSync(join(tmpdir(), "tp-no-default-tmux-"))
