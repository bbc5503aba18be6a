/**
 * The Node.js versions TermPilot runs on (HealthCheck.ts): 22.19 or newer, as package.json's engines
 * say; the doctor's line for the running Node and the launcher's refusal both follow nodeSupported.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { MINIMUM_NODE, nodeCheck, nodeSupported, renderChecks } from "../../src/domain/HealthCheck.js"

describe("the supported Node.js versions", () => {
  it("are 22.19 and newer, as package.json's engines say", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as {
      engines: { node: string }
    }
    expect(manifest.engines.node).toBe(`>=${MINIMUM_NODE}`)
    for (const ok of ["22.19.0", "v22.19.0", "22.19.1", "22.23.5", "23.0.0", "24.0.0", "v24.22.3", "30.1.0"])
      expect(nodeSupported(ok), ok).toBe(true)
    for (const old of ["22.18.0", "v22.18.9", "22.9.0", "21.99.0", "20.20.2", "18.19.0", "", "garbage"])
      expect(nodeSupported(old), old).toBe(false)
  })

  it("include the Node running this test", () => {
    expect(nodeSupported(process.versions.node)).toBe(true)
    expect(nodeCheck(process.versions.node, process.execPath)).toEqual({
      name: "node",
      status: "ok",
      detail: `Node.js ${process.version} (${process.execPath})`,
      remedy: null
    })
  })

  it("the doctor fails an older Node and says what to install", () => {
    const failed = nodeCheck("20.20.2", "/usr/bin/node")
    expect(failed.status).toBe("failed")
    expect(renderChecks("doctor", [failed], () => "Node.js")).toEqual([
      "doctor",
      "  [failed]   Node.js: Node.js v20.20.2 (/usr/bin/node) is older than TermPilot needs (22.19 or newer)",
      "             Install Node.js 22.19 or newer (24 LTS recommended): https://nodejs.org/en/download, or with a version manager (nvm install 24).",
      "             Then run TermPilot with that node (an MCP client's config may name a node path of its own).",
      "1 check(s) failed."
    ])
  })
})
