/**
 * The generated protocol code (proto/codegen.mjs): the committed Iterm2Messages.ts and
 * Iterm2Static.ts are exactly what proto/iterm2.proto generates, and the check fails, naming the
 * file, when either side drifts (a .proto edited without regenerating, a generated file edited).
 */
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "../..")
const codegen = join(root, "proto/codegen.mjs")
const proto = join(root, "proto/iterm2.proto")
const TYPES = "src/generated/iterm2/Iterm2Messages.ts"
const STATIC = "src/generated/iterm2/Iterm2Static.ts"
const scratch = mkdtempSync(join(tmpdir(), "tp-codegen-"))

afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const run = (...args: ReadonlyArray<string>) => {
  const r = spawnSync(process.execPath, [codegen, ...args], { cwd: root, encoding: "utf8", timeout: 60_000 })
  return { status: r.status, stderr: r.stderr }
}

/** A copy of the generated files under a fresh root, to edit or regenerate without touching the tree. */
const copyRoot = (name: string): string => {
  const dir = join(scratch, name)
  for (const file of [TYPES, STATIC]) {
    mkdirSync(join(dir, file, ".."), { recursive: true })
    copyFileSync(join(root, file), join(dir, file))
  }
  return dir
}

describe("protocol codegen", () => {
  it("the committed generated files are what the .proto generates", () => {
    expect(run("--check")).toEqual({ status: 0, stderr: "" })
  })

  it("fails naming the types and the static code when the .proto gains a field", () => {
    const edited = join(scratch, "edited.proto")
    writeFileSync(
      edited,
      readFileSync(proto, "utf8").replace("message Coord {\n", "message Coord {\n  optional int32 z = 3;\n")
    )
    const r = run("--check", "--proto", edited, "--root", copyRoot("drift-proto"))
    expect(r.status).toBe(1)
    expect(r.stderr).toContain("Iterm2Messages.ts")
    expect(r.stderr).toContain("Iterm2Static.ts")
  })

  it("fails when a generated file was edited by hand, and regenerating restores it", () => {
    const dir = copyRoot("drift-file")
    const types = join(dir, TYPES)
    writeFileSync(types, readFileSync(types, "utf8").replace("readonly x?: number", "readonly x?: string"))
    const r = run("--check", "--root", dir)
    expect(r.status).toBe(1)
    expect(r.stderr).toContain("Iterm2Messages.ts")
    expect(r.stderr).not.toContain("Iterm2Static.ts")
    expect(run("--root", dir).status).toBe(0)
    expect(readFileSync(types, "utf8")).toBe(readFileSync(join(root, TYPES), "utf8"))
  })
})
