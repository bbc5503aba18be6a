/**
 * Test harness for `termpilot chatgpt …`: a temporary world (a PATH dir holding the fake
 * tunnel-client, a record file, a TermPilot entry under a path with spaces and quotes) and an
 * in-process runner of the real effect/cli command that captures stdout, stderr and exit code.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, ConfigProvider, Effect, Exit, Option } from "effect"
import { CliError, Command } from "effect/cli"
import { CliExit, makeChatgptCommand } from "../../src/cli/chatgpt/ChatgptCommand.js"

export const FAKE_TUNNEL_CLIENT = fileURLToPath(
  new URL("../fakes/tunnel-client/tunnel-client.cjs", import.meta.url)
)

export interface Recorded {
  readonly argv: ReadonlyArray<string>
  readonly pid: number
  readonly envNames: ReadonlyArray<string>
  readonly keyRef: { readonly name: string; readonly set: boolean }
}

export interface World {
  readonly root: string
  /** Directory put first on PATH; holds `tunnel-client` (a link to the fake). */
  readonly binDir: string
  readonly recordFile: string
  /** A stand-in TermPilot entry whose path has spaces and quotes. */
  readonly entry: string
  readonly records: () => Array<Recorded>
  readonly cleanup: () => void
}

export const makeWorld = (): World => {
  chmodSync(FAKE_TUNNEL_CLIENT, 0o755)
  const root = mkdtempSync(join(tmpdir(), "termpilot chatgpt "))
  const binDir = join(root, "bin")
  mkdirSync(binDir)
  symlinkSync(FAKE_TUNNEL_CLIENT, join(binDir, "tunnel-client"))
  const entryDir = join(root, `it's a "termpilot" install`, "dist", "src", "cli")
  mkdirSync(entryDir, { recursive: true })
  const entry = join(entryDir, "bin.js")
  writeFileSync(entry, "// stand-in entry\n")
  const recordFile = join(root, "record.jsonl")
  return {
    root,
    binDir,
    recordFile,
    entry,
    records: () => {
      try {
        return readFileSync(recordFile, "utf8")
          .split("\n")
          .filter((line) => line.trim() !== "")
          .map((line) => JSON.parse(line) as Recorded)
      } catch {
        return []
      }
    },
    cleanup: () => rmSync(root, { recursive: true, force: true })
  }
}

export interface RunResult {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

/** Base environment for a run: the fake first on PATH, node's own dir for its shebang. */
export const worldEnv = (world: World, scenario: string): Record<string, string | undefined> => ({
  PATH: `${world.binDir}:${dirname(process.execPath)}`,
  FAKE_TUNNEL_SCENARIO: scenario,
  FAKE_TUNNEL_RECORD: world.recordFile
})

const withEnv = async <A>(env: Record<string, string | undefined>, body: () => Promise<A>): Promise<A> => {
  const saved = new Map<string, string | undefined>()
  for (const [name, value] of Object.entries(env)) {
    saved.set(name, process.env[name])
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  try {
    return await body()
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

/** Runs `termpilot chatgpt <args>` in-process with `env` applied; captures everything it prints. */
export const runChatgpt = (
  world: World,
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>
) =>
  withEnv(env, async (): Promise<RunResult> => {
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const original = { log: console.log, info: console.info, error: console.error, warn: console.warn }
    const writes = { out: process.stdout.write, err: process.stderr.write }
    const text = (parts: ReadonlyArray<unknown>) => `${parts.map(String).join(" ")}\n`
    console.log = (...parts: Array<unknown>) => void stdout.push(text(parts))
    console.info = console.log
    console.error = (...parts: Array<unknown>) => void stderr.push(text(parts))
    console.warn = console.error
    process.stdout.write = ((chunk: unknown) => stdout.push(String(chunk)) > 0) as typeof process.stdout.write
    process.stderr.write = ((chunk: unknown) => stderr.push(String(chunk)) > 0) as typeof process.stderr.write
    try {
      const cli = Command.runWith(makeChatgptCommand({ execPath: process.execPath, entry: world.entry }), {
        version: "0.0.0-test"
      })
      // Effect 4's default ConfigProvider reads process.env once per process; a fresh one per run
      // sees this run's environment, as Effect 3's did.
      const exit = await Effect.runPromiseExit(
        cli(args).pipe(
          Effect.provide(NodeServices.layer),
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv())
        )
      )
      let exitCode = 0
      if (Exit.isFailure(exit)) {
        const error = Cause.findErrorOption(exit.cause)
        if (Option.isSome(error) && error.value instanceof CliExit) exitCode = error.value.code
        // A command-line parse or validation error (what @effect/cli called a ValidationError); a
        // UserError is a handler's own failure, not the parser's.
        else if (Option.isSome(error) && CliError.isCliError(error.value) && error.value._tag !== "UserError")
          exitCode = 2
        else throw new Error(`unexpected failure: ${Cause.pretty(exit.cause)}`)
      }
      return { exitCode, stdout: stdout.join(""), stderr: stderr.join("") }
    } finally {
      Object.assign(console, original)
      process.stdout.write = writes.out
      process.stderr.write = writes.err
    }
  })
