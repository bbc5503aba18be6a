/**
 * Backend — the iTerm2 backend as one Layer: its Terminal and PromptTracker over the one
 * Iterm2Connection they share (also given out, for `termpilot doctor`). BackendLive imports this
 * module dynamically, when iTerm2 is there or first used, so that a server that only ever sees
 * tmux never evaluates the iTerm2 code, ws and the protobuf messages.
 */
import { Layer } from "effect"
import { Iterm2ConnectionLive } from "./Connection.js"
import { Iterm2PromptTrackerLive } from "./PromptTracker.js"
import { Iterm2TerminalLive } from "./Terminal.js"

export const Iterm2Backend = Layer.merge(Iterm2TerminalLive, Iterm2PromptTrackerLive).pipe(
  Layer.provideMerge(Iterm2ConnectionLive)
)
