import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Keeps every test (and every termpilot it spawns) away from the machine's own tmux servers.
    setupFiles: ["test/support/IsolateTmux.ts"],
    // Fails the run at once, one line per missing program and its install command (never skips).
    globalSetup: ["scripts/test-prerequisites.mjs"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Real shells and PTYs: keep the load within a 2-core machine (vitest 5 has no minWorkers; workers
    // start as files need them, up to this bound).
    maxWorkers: 2
  }
})
