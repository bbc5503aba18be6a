/**
 * The stdio command tunnel-client will exec to start this very TermPilot installation: the
 * absolute Node executable and the absolute built entry (the file package.json's "bin" names, found
 * from the package root: the same from the bundle and from the compiled modules), each word quoted
 * for tunnel-client's splitter and checked against its inline-secret rule.
 */
import { Effect, FileSystem, Option, Path, Result } from "effect"
import { inlineSecretFinding } from "../../domain/InlineSecret.js"
import { joinWords } from "../../domain/ShellWords.js"
import { binPath } from "../../installation/PackageRoot.js"

export interface McpLaunch {
  /** Absolute path of the Node executable. */
  readonly execPath: string
  /** Absolute path of TermPilot's built CLI entry. */
  readonly entry: string
}

/** This installation: `process.execPath` and the bin package.json names. */
export const currentLaunch = (): McpLaunch => ({
  execPath: process.execPath,
  entry: binPath()
})

/** The quoted command, or why it cannot be used. Checks absoluteness, existence and the secret rule. */
export const mcpCommandFor = (
  launch: McpLaunch
): Effect.Effect<Result.Result<string, string>, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    for (const [what, file] of [
      ["Node executable", launch.execPath],
      ["TermPilot entry point", launch.entry]
    ] as const) {
      if (!path.isAbsolute(file)) return Result.fail(`The ${what} path is not absolute: ${file}`)
      const exists = yield* fs.exists(file).pipe(Effect.orElseSucceed(() => false))
      if (!exists) {
        return Result.fail(`The ${what} does not exist: ${file} (is TermPilot built and installed?)`)
      }
    }
    const command = joinWords([launch.execPath, launch.entry])
    return Option.match(inlineSecretFinding(command), {
      onNone: () => Result.succeed(command),
      onSome: (what) =>
        Result.fail(
          `tunnel-client would refuse the TermPilot command because its paths look like they contain ${what}; ` +
            "install TermPilot (or Node) under a different directory."
        )
    })
  })
