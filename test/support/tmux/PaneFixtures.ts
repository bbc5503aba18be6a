/**
 * PaneFixtures — tmux pane flags as tmux reports them for a plain shell pane (alive, no mode, main
 * screen, input on, not synchronized), for the pure verdict tests to vary one flag at a time.
 */
import type { PaneFlags } from "../../../src/domain/tmux/PaneFormat.js"

export const idleFlags = (tokens: ReadonlyArray<string>): PaneFlags => ({
  dead: false,
  mode: null,
  alternateScreen: false,
  inputOff: false,
  synchronized: false,
  tokens,
  panePid: null,
  claim: null
})
