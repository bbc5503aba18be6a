/**
 * TunnelClientLive — runs the real `tunnel-client` through Effect's ChildProcess: resolves
 * the executable (explicit path or PATH), builds the exact documented argv, bounds every call with
 * a timeout (SIGTERM, then SIGKILL), and decodes stdout JSON even when the exit code is non-zero.
 */
import {
  Config,
  Duration,
  Effect,
  Fiber,
  FileSystem,
  Layer,
  Option,
  Path,
  Ref,
  Result,
  Schema,
  Stream
} from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import {
  type ConnectRequest,
  RuntimePayload,
  TunnelClient,
  TunnelClientError,
  type TunnelClientFailure
} from "../../services/TunnelClient.js"

export interface TunnelClientTimeouts {
  readonly version: Duration.Input
  readonly status: Duration.Input
  readonly connect: Duration.Input
  readonly stop: Duration.Input
}

export interface TunnelClientSettings {
  /** `--tunnel-client`: a path (`~/` allowed) or a bare name looked up on PATH. */
  readonly executable: Option.Option<string>
  readonly timeouts: TunnelClientTimeouts
}

export const defaultTimeouts: TunnelClientTimeouts = {
  version: "15 seconds",
  status: "30 seconds",
  connect: "120 seconds",
  stop: "30 seconds"
}

/** Longest stdout/stderr kept from one call; tunnel-client payloads are a few KiB. */
const MAX_CAPTURE = 1024 * 1024
/** After exit, how long to wait for pipes held open by a detached grandchild. */
const DRAIN_GRACE = "2 seconds"
/** After SIGTERM on timeout, how long before SIGKILL. */
const KILL_GRACE = "2 seconds"

interface Completed {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

const failure = (reason: TunnelClientFailure, detail: string, extra: Partial<TunnelClientError> = {}) =>
  new TunnelClientError({ reason, detail, ...extra })

const envOr = (name: string) =>
  Config.String(name).pipe(
    Config.withDefault(""),
    Effect.catch(() => Effect.succeed(""))
  )

/** First meaningful line(s) of a text stream, bounded, for messages. */
const summarize = (text: string): string => {
  const trimmed = text.trim()
  return trimmed.length > 500 ? `${trimmed.slice(0, 500)}…` : trimmed
}

const nonEmpty = (value: string | null | undefined): value is string =>
  typeof value === "string" && value.trim() !== ""

const decodePayload = Schema.decodeUnknownResult(RuntimePayload, { onExcessProperty: "ignore" })

/** Either the decoded payload or what was wrong with stdout. */
const parsePayload = (stdout: string): Result.Result<RuntimePayload, string> => {
  const text = stdout.trim()
  if (text === "") return Result.fail("no output")
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return Result.fail("output that is not JSON")
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    return Result.fail("JSON that is not an object")
  }
  return Result.mapError(
    decodePayload(json),
    (error) => `a payload of an unexpected shape (${error.message})`
  )
}

const interpretJson = (what: string, done: Completed): Effect.Effect<RuntimePayload, TunnelClientError> => {
  const parsed = parsePayload(done.stdout)
  if (done.exitCode === 0) {
    return Result.match(parsed, {
      onSuccess: Effect.succeed,
      onFailure: (problem) =>
        Effect.fail(
          failure("bad_output", `tunnel-client ${what} exited 0 but printed ${problem}.`, { exitCode: 0 })
        )
    })
  }
  if (Result.isSuccess(parsed)) {
    const payload = parsed.success
    const said = [payload.error, payload.remote_error, payload.stop_error].find(nonEmpty)
    return Effect.fail(
      failure(
        "exited_nonzero",
        said ??
          `tunnel-client ${what} reported a problem (exit status ${done.exitCode}` +
            `${nonEmpty(payload.runtime_state) ? `, runtime state ${payload.runtime_state}` : ""}).`,
        { exitCode: done.exitCode, payload }
      )
    )
  }
  const stderr = summarize(done.stderr)
  return Effect.fail(
    failure(
      "exited_nonzero",
      stderr !== "" ? stderr : `tunnel-client ${what} exited with status ${done.exitCode}.`,
      { exitCode: done.exitCode }
    )
  )
}

export const makeTunnelClient = (settings: TunnelClientSettings) =>
  Effect.gen(function* () {
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path

    const isExecutableFile = (candidate: string) =>
      fs.stat(candidate).pipe(
        Effect.map((info) => info.type === "File" && (info.mode & 0o111) !== 0),
        Effect.orElseSucceed(() => false)
      )

    const searchPath = (name: string) =>
      Effect.gen(function* () {
        const dirs = (yield* envOr("PATH")).split(path.sep === "\\" ? ";" : ":").filter((dir) => dir !== "")
        for (const dir of dirs) {
          const candidate = path.resolve(dir, name)
          if (yield* isExecutableFile(candidate)) return Option.some(candidate)
        }
        return Option.none<string>()
      })

    const resolve = Effect.gen(function* () {
      if (Option.isNone(settings.executable)) {
        const found = yield* searchPath("tunnel-client")
        if (Option.isSome(found)) return found.value
        return yield* failure("not_found", "tunnel-client is not installed or is not on PATH.")
      }
      const given = settings.executable.value.trim()
      if (!given.includes("/")) {
        const found = yield* searchPath(given)
        if (Option.isSome(found)) return found.value
        return yield* failure("not_found", `tunnel-client executable not found on PATH: ${given}`)
      }
      const home = yield* envOr("HOME")
      const expanded = given.startsWith("~/") && home !== "" ? path.join(home, given.slice(2)) : given
      const absolute = path.resolve(expanded)
      if (yield* isExecutableFile(absolute)) return absolute
      return yield* failure(
        "not_found",
        `tunnel-client executable not found (or not executable): ${absolute}`
      )
    })
    const executable = yield* Effect.cached(resolve)

    const drainInto = (stream: Stream.Stream<Uint8Array, unknown>, into: Ref.Ref<string>) =>
      stream.pipe(
        Stream.decodeText(),
        Stream.runForEach((chunk) =>
          Ref.update(into, (text) => (text.length >= MAX_CAPTURE ? text : text + chunk))
        ),
        Effect.ignore
      )

    const run = (args: ReadonlyArray<string>, timeout: Duration.Input) =>
      Effect.gen(function* () {
        const bin = yield* executable
        const command = ChildProcess.make(bin, [...args], { stdin: Stream.empty })
        return yield* Effect.scoped(
          Effect.gen(function* () {
            const proc = yield* spawner
              .spawn(command)
              .pipe(
                Effect.mapError((cause) =>
                  failure("failed_to_start", `Could not start ${bin}: ${cause.message}`, { cause })
                )
              )
            const stdout = yield* Ref.make("")
            const stderr = yield* Ref.make("")
            const collect = Effect.gen(function* () {
              const readers = yield* Effect.forkChild(
                Effect.all([drainInto(proc.stdout, stdout), drainInto(proc.stderr, stderr)], {
                  concurrency: 2
                })
              )
              const exitCode = yield* proc.exitCode.pipe(
                Effect.mapError((cause) =>
                  failure("exited_nonzero", `tunnel-client ${args.join(" ")} was ended by a signal.`, {
                    cause
                  })
                )
              )
              // Exited 0: what it left running (the runtime `runtimes connect` starts) stays. Without
              // this, closing the scope would signal the process group of an exited child.
              if (exitCode === 0) yield* Effect.ignore(proc.unref)
              yield* Fiber.join(readers).pipe(Effect.timeout(DRAIN_GRACE), Effect.ignore)
              return { exitCode, stdout: yield* Ref.get(stdout), stderr: yield* Ref.get(stderr) }
            })
            const terminate = proc.kill({ killSignal: "SIGTERM" }).pipe(
              Effect.timeout(KILL_GRACE),
              Effect.catch(() => proc.kill({ killSignal: "SIGKILL" }).pipe(Effect.timeout(KILL_GRACE))),
              Effect.ignore
            )
            return yield* collect.pipe(
              Effect.timeoutOrElse({
                duration: timeout,
                orElse: () =>
                  Effect.fail(
                    failure(
                      "timeout",
                      `tunnel-client ${args.slice(0, 3).join(" ")} did not answer within ` +
                        `${Duration.format(Duration.fromInputUnsafe(timeout))}; it was stopped.`
                    )
                  )
              }),
              Effect.tapErrorTag("TunnelClientError", (error) =>
                error.reason === "timeout" ? terminate : Effect.void
              )
            )
          })
        )
      })

    const runtimes = (what: string, args: ReadonlyArray<string>, timeout: Duration.Input) =>
      run(["runtimes", "--json", ...args], timeout).pipe(Effect.flatMap((done) => interpretJson(what, done)))

    const version = run(["--version"], settings.timeouts.version).pipe(
      Effect.flatMap((done) => {
        const line = [done.stdout, done.stderr]
          .flatMap((text) => text.split("\n"))
          .map((l) => l.trim())
          .find((l) => l !== "")
        if (done.exitCode !== 0) {
          return Effect.fail(
            failure(
              "exited_nonzero",
              summarize(done.stderr) || `tunnel-client --version exited with status ${done.exitCode}.`,
              {
                exitCode: done.exitCode
              }
            )
          )
        }
        return line === undefined
          ? Effect.fail(failure("bad_output", "tunnel-client --version printed nothing.", { exitCode: 0 }))
          : Effect.succeed(line)
      })
    )

    return TunnelClient.of({
      executable,
      version,
      connect: (request: ConnectRequest) =>
        runtimes(
          "runtimes connect",
          [
            "connect",
            "--alias",
            request.alias,
            "--tunnel-id",
            request.tunnelId,
            "--runtime-api-key",
            `env:${request.runtimeKeyEnv}`,
            "--mcp-command",
            request.mcpCommand
          ],
          settings.timeouts.connect
        ),
      status: (alias: string) => runtimes("runtimes status", ["status", alias], settings.timeouts.status),
      stop: (alias: string) => runtimes("runtimes stop", ["stop", alias], settings.timeouts.stop)
    })
  })

/** The live layer; needs ChildProcessSpawner, FileSystem and Path (NodeServices.layer). */
export const TunnelClientLive = (settings: TunnelClientSettings) =>
  Layer.effect(TunnelClient, makeTunnelClient(settings))
