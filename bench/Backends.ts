/**
 * Backends — the terminal worlds the bench measures TermPilot against. Each backend starts a world
 * with real shells and tells the spawned server how to reach it; every figure in Figures.ts runs
 * against every backend listed in `backends`.
 *
 * To add one: write bench/<Name>Backend.ts exporting a BenchBackend, and append it below.
 */

import type { BenchBackend } from "./BackendTypes.js"
import { iterm2FakeBackend } from "./Iterm2FakeBackend.js"
import { sshTmuxBackend } from "./SshTmuxBackend.js"
import { tmuxBackend } from "./TmuxBackend.js"

export type {
  BackendTargets,
  BenchBackend,
  BenchWorld,
  CommandSpan,
  WorldOptions
} from "./BackendTypes.js"

/** Targets every backend shares (issue 17): memory and start-up. */
export const sharedTargets = {
  idleRssMb: 80,
  peakRssMb: 95,
  firstStartMs: 350,
  returningStartMs: 220,
  /** run_command of 5 MB / 50 MB ÷ a bare control-mode client reading the same output. */
  bigOutputRatio: 1.3
} as const

/** Every backend the bench runs. */
export const backends: ReadonlyArray<BenchBackend> = [iterm2FakeBackend, tmuxBackend, sshTmuxBackend]
