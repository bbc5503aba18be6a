/**
 * `termpilot shell-integration` through the built CLI: the snippet on stdout exactly as the module
 * holds it (nothing read from files at run time), clear refusals with exit 2, install help.
 */
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { bashSnippet } from "../../src/shell-integration/BashSnippet.js"
import { zshSnippet } from "../../src/shell-integration/ZshSnippet.js"

const root = join(import.meta.dirname, "..", "..")
const bin = join(root, "dist/src/cli/bin.js")

const cli = (...args: ReadonlyArray<string>) => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npx tsc -p tsconfig.build.json\` first`)
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [bin, ...args], { timeout: 20_000, cwd: "/" }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
    )
  })
}

describe("termpilot shell-integration", () => {
  it("prints the bash and zsh snippets exactly, exit 0", async () => {
    const bash = await cli("shell-integration", "bash")
    expect(bash).toMatchObject({ code: 0, stderr: "" })
    expect(bash.stdout).toBe(`${bashSnippet.trimEnd()}\n`)
    const zsh = await cli("shell-integration", "/usr/bin/zsh")
    expect(zsh.stdout).toBe(`${zshSnippet.trimEnd()}\n`)
  })

  it("refuses no shell and an unknown shell with exit 2, naming the choices", async () => {
    const none = await cli("shell-integration")
    expect(none).toMatchObject({ code: 2, stdout: "" })
    expect(none.stderr).toContain("bash, zsh, fish")
    const ksh = await cli("shell-integration", "ksh")
    expect(ksh).toMatchObject({ code: 2, stdout: "" })
    expect(ksh.stderr).toMatch(/unknown shell "ksh".*bash, zsh, fish/)
  })

  it("--help says how to install: a file sourced from the rc file (recommended), or eval", async () => {
    const help = await cli("shell-integration", "--help")
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("termpilot shell-integration bash > ~/.termpilot-integration.bash")
    expect(help.stdout).toContain("source ~/.termpilot-integration.bash")
    expect(help.stdout).toContain('eval "$(termpilot shell-integration bash)"')
    expect(help.stdout).toMatch(/recommended, no node start per shell/)
  })
})
