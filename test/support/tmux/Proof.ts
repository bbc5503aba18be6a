/**
 * Proof — "nothing reached any pane", from the panes' own recorders: every pane of every world
 * is marked before the action and fenced after it; each live pane's log must have grown by the
 * fence byte alone, and a dead or vanished pane's log not at all. No argv file may appear either.
 */
import { expect } from "vitest"
import { FENCE } from "./Recorder.js"
import type { TmuxWorld, WorldPane } from "./TmuxWorld.js"

/** Runs `action`, then proves from the recorders that no pane of `worlds` received a byte. */
export const expectNothingReached = async <A>(
  worlds: ReadonlyArray<TmuxWorld>,
  action: () => Promise<A>,
  /** What the action was, for the failure message. */
  label = "the action"
): Promise<A> => {
  const panes = worlds.flatMap((world) => world.panes)
  const marks = panes.map((pane) => pane.files.recorder.mark())
  const argvs = panes.map((pane) => JSON.stringify(pane.files.argv()))
  const result = await action()
  const fenced = new Set<WorldPane>()
  for (const world of worlds) {
    const live = await world.livePanes()
    const mine = world.panes.filter((pane) => live.get(pane.paneId) === false)
    const mineMarks = mine.map((pane) => marks[panes.indexOf(pane)]!)
    if (mine.length > 0) await world.fence(mine, mineMarks)
    for (const pane of mine) fenced.add(pane)
  }
  panes.forEach((pane, i) => {
    const arrived = pane.files.recorder.since(marks[i]!).toString("latin1")
    const expected = fenced.has(pane) ? FENCE : ""
    expect(
      JSON.stringify(arrived),
      `bytes that reached ${pane.paneId} of ${pane.world.socket} during ${label}`
    ).toBe(JSON.stringify(expected))
    expect(JSON.stringify(pane.files.argv()), `tp_argv ran in ${pane.paneId} during ${label}`).toBe(argvs[i])
  })
  return result
}
