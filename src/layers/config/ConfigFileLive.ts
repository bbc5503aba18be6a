/**
 * Loading the optional config file through Effect's FileSystem: the first candidate path
 * that exists is decoded; no file at all means the defaults; a file that cannot be read or decoded
 * is a ConfigFileError naming it (never silently ignored).
 */
import { Effect, FileSystem, Option } from "effect"
import {
  ConfigFileError,
  DEFAULT_CONFIG,
  decodeConfigText,
  type TermPilotConfig
} from "../../domain/ConfigFile.js"

export interface LoadedConfigFile {
  readonly config: TermPilotConfig
  /** The file the config came from; null when none of the candidates exists. */
  readonly path: string | null
}

const readIfPresent = (fs: FileSystem.FileSystem, path: string) =>
  fs.readFileString(path).pipe(
    Effect.map(Option.some),
    Effect.catchIf(
      (error) => error.reason._tag === "NotFound",
      () => Effect.succeedNone
    ),
    Effect.mapError(
      (cause) => new ConfigFileError({ path, reason: "unreadable", detail: cause.message, cause })
    )
  )

/** Load the first existing file among `candidates` (see `resolveConfigPaths`). */
export const loadConfigFile = Effect.fn("ConfigFile.load")(function* (candidates: ReadonlyArray<string>) {
  const fs = yield* FileSystem.FileSystem
  for (const path of candidates) {
    const text = yield* readIfPresent(fs, path)
    if (Option.isSome(text)) {
      const config = yield* Effect.fromResult(decodeConfigText(text.value, path))
      return { config, path } satisfies LoadedConfigFile
    }
  }
  return { config: DEFAULT_CONFIG, path: null } satisfies LoadedConfigFile
})
