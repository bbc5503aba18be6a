import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { afterEach } from "vitest"
import {
  DEFAULT_CONFIG,
  decodeConfigText,
  defaultAuditPath,
  resolveAuditPath,
  resolveConfigPaths
} from "../../src/domain/ConfigFile.js"
import { loadConfigFile } from "../../src/layers/config/ConfigFileLive.js"

const decodeError = (text: string) => {
  const result = decodeConfigText(text, "/etc/x/config.json")
  if (Result.isSuccess(result)) throw new Error(`expected a failure for ${text}`)
  return result.failure
}

describe("ConfigFile schema", () => {
  it("fills every default: redaction and audit on, 10 MiB, not read-only, 15 s deadline, no policy, approval never (120 s)", () => {
    expect(DEFAULT_CONFIG).toEqual({
      readOnly: false,
      toolDeadlineMs: 15_000,
      redaction: { enabled: true },
      audit: { enabled: true, maxBytes: 10 * 1024 * 1024 },
      policy: {},
      approval: {
        policy: "never",
        timeoutSeconds: 120,
        riskyPatterns: [],
        askIn: "auto",
        sendKeysWithoutApproval: false
      },
      backends: "auto",
      tmux: { sockets: [], hosts: [] }
    })
    expect(decodeConfigText("{}", "/c.json")).toEqual(Result.succeed(DEFAULT_CONFIG))
    expect(decodeConfigText('{"audit":{"path":"~/a.jsonl"}}', "/c.json")).toEqual(
      Result.succeed({
        ...DEFAULT_CONFIG,
        audit: { enabled: true, path: "~/a.jsonl", maxBytes: 10 * 1024 * 1024 }
      })
    )
  })

  it("accepts a full file", () => {
    const text = JSON.stringify({
      $schema: "https://example.com/termpilot.schema.json",
      readOnly: true,
      redaction: { enabled: false },
      audit: { enabled: false, path: "/var/log/tp.jsonl", maxBytes: 65536 },
      policy: {
        visible: { deny: { tags: ["private"] } },
        actionable: { allow: { profiles: ["Dev*"], tmuxSessions: ["scratch"] } }
      }
    })
    const result = decodeConfigText(text, "/c.json")
    expect(Result.isSuccess(result) && result.success.policy.actionable?.allow?.profiles).toEqual(["Dev*"])
    expect(Result.isSuccess(result) && result.success.audit).toEqual({
      enabled: false,
      path: "/var/log/tp.jsonl",
      maxBytes: 65536
    })
  })

  it("rejects unknown keys, naming the key and what is allowed", () => {
    const top = decodeError('{"readonly": true}')
    expect(top.reason).toBe("invalid")
    expect(top.path).toBe("/etc/x/config.json")
    expect(top.message).toContain('unknown key "readonly"')
    expect(top.message).toContain('"readOnly"')
    expect(top.message).toContain("/etc/x/config.json")
    const nested = decodeError('{"audit": {"maxbytes": 5}}')
    expect(nested.detail).toContain('unknown key "audit.maxbytes"')
    const deep = decodeError('{"policy": {"visible": {"deny": {"profile": ["x"]}}}}')
    expect(deep.detail).toContain('unknown key "policy.visible.deny.profile"')
  })

  it("rejects wrong types and bounds with the key path", () => {
    expect(decodeError('{"readOnly": "yes"}').detail).toContain("readOnly: Expected boolean")
    expect(decodeError('{"audit": {"maxBytes": 10}}').detail).toContain("audit.maxBytes:")
    expect(decodeError('{"audit": {"maxBytes": 5000.5}}').detail).toContain("integer")
    expect(decodeError('{"audit": {"path": "logs/a.jsonl"}}').detail).toContain(
      "audit.path: must be an absolute path or start with ~/"
    )
    expect(decodeError('{"policy": {"actionable": {"allow": {"tags": [""]}}}}').detail).toContain(
      "policy.actionable.allow.tags.0"
    )
    expect(decodeError("[]").detail).toBe("must be a JSON object")
    expect(decodeError('{"approval": {"policy": "sometimes"}}').detail).toContain("approval.policy")
    expect(decodeError('{"approval": {"askIn": "pane"}}').detail).toContain("approval.askIn")
    expect(decodeError('{"approval": {"timeoutSeconds": 0}}').detail).toContain(
      "approval.timeoutSeconds: must be an integer number of seconds from 1 to 3600"
    )
    expect(decodeError('{"approval": {"riskyPatterns": ["(unclosed"]}}').detail).toContain(
      "approval.riskyPatterns.0: must be a valid regular expression"
    )
  })

  it("backends: auto or a list of iterm2/tmux without repeats; tmux.sockets: absolute or ~/ paths", () => {
    const ok = decodeConfigText('{"backends": ["tmux"], "tmux": {"sockets": ["~/s", "/tmp/x"]}}', "/c.json")
    expect(Result.isSuccess(ok) && [ok.success.backends, ok.success.tmux.sockets]).toEqual([
      ["tmux"],
      ["~/s", "/tmp/x"]
    ])
    expect(decodeError('{"backends": []}').detail).toContain("backends")
    expect(decodeError('{"backends": ["screen"]}').detail).toContain("backends")
    expect(decodeError('{"backends": ["tmux", "tmux"]}').detail).toContain("lists a backend twice")
    expect(decodeError('{"tmux": {"sockets": ["rel/sock"]}}').detail).toContain(
      "tmux.sockets.0: must be an absolute path or start with ~/"
    )
    expect(decodeError('{"tmux": {"socket": []}}').detail).toContain('unknown key "tmux.socket"')
  })

  it("reports invalid JSON as such", () => {
    const error = decodeError('{"readOnly": true,}')
    expect(error.reason).toBe("invalid_json")
    expect(error.detail).toMatch(/^not valid JSON/)
  })
})

describe("config and audit paths", () => {
  it("XDG_CONFIG_HOME first, else ~/.config; macOS adds Application Support", () => {
    expect(resolveConfigPaths({ HOME: "/home/u", XDG_CONFIG_HOME: "/x/cfg" }, "linux")).toEqual([
      "/x/cfg/termpilot/config.json"
    ])
    expect(resolveConfigPaths({ HOME: "/home/u" }, "linux")).toEqual([
      "/home/u/.config/termpilot/config.json"
    ])
    expect(resolveConfigPaths({ HOME: "/Users/u/" }, "darwin")).toEqual([
      "/Users/u/.config/termpilot/config.json",
      "/Users/u/Library/Application Support/TermPilot/config.json"
    ])
  })

  it("ignores a relative XDG_CONFIG_HOME (the XDG spec says so) and honours TERMPILOT_CONFIG", () => {
    expect(resolveConfigPaths({ HOME: "/home/u", XDG_CONFIG_HOME: "rel" }, "linux")).toEqual([
      "/home/u/.config/termpilot/config.json"
    ])
    expect(resolveConfigPaths({ HOME: "/home/u", TERMPILOT_CONFIG: "~/tp.json" }, "darwin")).toEqual([
      "/home/u/tp.json"
    ])
    expect(resolveConfigPaths({}, "linux")).toEqual([])
  })

  it("audit log: XDG_STATE_HOME, else ~/.local/state on Linux and Application Support on macOS", () => {
    expect(defaultAuditPath({ HOME: "/home/u", XDG_STATE_HOME: "/s" }, "linux")).toBe(
      "/s/termpilot/audit.jsonl"
    )
    expect(defaultAuditPath({ HOME: "/home/u" }, "linux")).toBe("/home/u/.local/state/termpilot/audit.jsonl")
    expect(defaultAuditPath({ HOME: "/Users/u" }, "darwin")).toBe(
      "/Users/u/Library/Application Support/TermPilot/audit.jsonl"
    )
    expect(defaultAuditPath({}, "linux")).toBeUndefined()
    const audit = { enabled: true, maxBytes: 4096 }
    expect(resolveAuditPath({ ...audit, path: "~/logs/a.jsonl" }, { HOME: "/home/u" }, "linux")).toBe(
      "/home/u/logs/a.jsonl"
    )
    expect(resolveAuditPath({ ...audit, path: "~/logs/a.jsonl" }, {}, "linux")).toBeUndefined()
    expect(resolveAuditPath(audit, { HOME: "/home/u" }, "linux")).toBe(
      "/home/u/.local/state/termpilot/audit.jsonl"
    )
  })
})

describe("loadConfigFile (real files)", () => {
  const dirs: Array<string> = []
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "termpilot-config-"))
    dirs.push(dir)
    return dir
  }
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  const load = (candidates: ReadonlyArray<string>) =>
    loadConfigFile(candidates).pipe(Effect.provide(NodeFileSystem.layer))

  it.effect("returns the defaults when no candidate exists", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const loaded = yield* load([join(dir, "a.json"), join(dir, "b.json")])
      expect(loaded).toEqual({ config: DEFAULT_CONFIG, path: null })
    })
  )

  it.effect("uses the first candidate that exists", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      writeFileSync(join(dir, "b.json"), '{"readOnly": true}')
      writeFileSync(join(dir, "c.json"), '{"readOnly": false}')
      const loaded = yield* load([join(dir, "a.json"), join(dir, "b.json"), join(dir, "c.json")])
      expect(loaded.path).toBe(join(dir, "b.json"))
      expect(loaded.config.readOnly).toBe(true)
    })
  )

  it.effect("fails with the file's path when the file is invalid", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "config.json")
      writeFileSync(path, '{"audit": {"enabled": "no"}}')
      const error = yield* Effect.flip(load([path, join(dir, "later.json")]))
      expect(error._tag).toBe("ConfigFileError")
      expect(error.path).toBe(path)
      expect(error.reason).toBe("invalid")
      expect(error.detail).toContain("audit.enabled")
    })
  )

  it.effect("fails as unreadable (not as absent) when the path is a directory", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "config.json")
      mkdirSync(path)
      const error = yield* Effect.flip(load([path]))
      expect(error.reason).toBe("unreadable")
      expect(error.path).toBe(path)
    })
  )
})
