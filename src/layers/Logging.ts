/**
 * Logging for every TermPilot process: stdout may carry JSON-RPC, so every log line goes to
 * stderr. Replaces Effect's default logger (console.log) and drops the pretty logger that
 * `runMain` installs.
 */
import { Layer, Logger, type LogLevel } from "effect"

/** Log lines as logfmt on stderr; neither Effect's default nor runMain's pretty logger survives. */
export const StderrLogging: Layer.Layer<never> = Layer.mergeAll(
  Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)),
  Logger.remove(Logger.prettyLoggerDefault)
)

/** Stderr logging at a minimum level (Info unless a caller asks for more or less). */
export const stderrLoggingAt = (level: LogLevel.LogLevel): Layer.Layer<never> =>
  Layer.merge(StderrLogging, Logger.minimumLogLevel(level))
