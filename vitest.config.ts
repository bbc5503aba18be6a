import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Real shells and PTYs: keep the load within a 2-core machine.
    maxWorkers: 2,
    minWorkers: 1
  }
})
