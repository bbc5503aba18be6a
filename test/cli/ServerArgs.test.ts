/**
 * What bin.ts runs without loading the command line (RunServer.serverOnlyArgs), and which file an
 * installation's bin is (PackageRoot.binPath, what `chatgpt setup` records for tunnel-client).
 */
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { currentLaunch } from "../../src/cli/chatgpt/McpCommand.js"
import { serverOnlyArgs } from "../../src/cli/RunServer.js"
import { binPath } from "../../src/installation/PackageRoot.js"

describe("serverOnlyArgs", () => {
  it("takes the plain server, read-only or not, with or without `serve`", () => {
    expect(serverOnlyArgs([])).toEqual({ readOnly: false })
    expect(serverOnlyArgs(["--read-only"])).toEqual({ readOnly: true })
    expect(serverOnlyArgs(["serve"])).toEqual({ readOnly: false })
    expect(serverOnlyArgs(["serve", "--read-only"])).toEqual({ readOnly: true })
  })

  it("leaves everything else to the full command line", () => {
    for (const args of [
      ["--help"],
      ["--version"],
      ["doctor"],
      ["chatgpt", "setup"],
      ["--read-only", "serve"],
      ["serve", "--help"],
      ["--read-only", "--read-only"],
      ["--readonly"],
      ["serve", "serve"]
    ])
      expect(serverOnlyArgs(args)).toBeUndefined()
  })
})

describe("binPath", () => {
  it("is the package root's bin.termpilot, the entry chatgpt setup records", () => {
    const root = resolve(import.meta.dirname, "../..")
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      bin: { termpilot: string }
    }
    expect(binPath()).toBe(join(root, manifest.bin.termpilot))
    expect(currentLaunch()).toEqual({ execPath: process.execPath, entry: binPath() })
  })
})
