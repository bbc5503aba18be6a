/**
 * How long the registry waits for a host that hangs (TmuxRegistry.ts), with a real program as the
 * ssh client: a shell script that ignores its arguments and sleeps (a host that accepted the
 * connection and says nothing), ended by the registry's own timeout. The first survey waits the
 * host timeout; within the backoff the host is answered from its last failure at once; once the
 * backoff lapsed, the retry is waited for only the grace (1.5 s), then the last failure stands
 * while the retry goes on. The script's sleeps are ended by TermPilot's timeout (SIGTERM on
 * execFile's timeout); nothing else is started.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { parseTmuxHost } from "../../src/domain/tmux/TmuxHost.js"
import { TmuxRegistry } from "../../src/layers/backends/tmux/Registry.js"

const dir = mkdtempSync(join(tmpdir(), "tp-host-backoff-"))
const silentSsh = join(dir, "ssh")
writeFileSync(silentSsh, "#!/bin/sh\nexec sleep 6\n")
chmodSync(silentSsh, 0o755)

afterAll(async () => {
  // The last retry's sleep is ended by the registry's timeout (2 s after it started).
  await new Promise((resolve) => setTimeout(resolve, 2_200))
  rmSync(dir, { recursive: true, force: true })
})

const timedSurvey = async (registry: TmuxRegistry) => {
  const started = Date.now()
  const survey = await Effect.runPromise(registry.survey)
  return { survey, ms: Date.now() - started }
}

describe("a host that hangs, as the registry waits for it", () => {
  it("the host timeout once, then nothing within the backoff, then at most the grace", async () => {
    const registry = new TmuxRegistry([], {
      tmuxPath: "tmux",
      commandTimeoutMs: 2_000,
      hosts: [parseTmuxHost("hangs")!],
      ssh: { sshPath: silentSsh, sshConfig: null }
    })
    try {
      const first = await timedSurvey(registry)
      expect(first.survey.servers).toEqual([])
      expect(first.survey.unavailable.map((u) => [u.host, u.error.code])).toEqual([
        ["hangs", "tmux_unavailable"]
      ])
      expect(first.ms).toBeGreaterThanOrEqual(1_900)
      expect(first.ms).toBeLessThan(3_000)

      const within = await timedSurvey(registry)
      expect(within.survey.unavailable).toHaveLength(1)
      expect(within.ms).toBeLessThan(200)

      // The first backoff is 1 s: the next survey starts the retry and waits the grace only.
      await new Promise((resolve) => setTimeout(resolve, 1_100))
      const retry = await timedSurvey(registry)
      expect(retry.survey.unavailable.map((u) => u.error)).toEqual([first.survey.unavailable[0]!.error])
      expect(retry.ms).toBeGreaterThanOrEqual(1_400)
      expect(retry.ms).toBeLessThan(1_900)
    } finally {
      await registry.close()
    }
  })
})
