/**
 * Logging for every TermPilot process: stdout may carry JSON-RPC, so every log line goes to
 * stderr. Replaces Effect's default logger (console.log) and drops the pretty logger that
 * `runMain` installs.
 */
import { Layer, Logger } from "effect"

/** Log lines as logfmt on stderr; neither Effect's default nor runMain's pretty logger survives. */
export const StderrLogging: Layer.Layer<never> = Layer.mergeAll(
  Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)),
  Logger.remove(Logger.prettyLoggerDefault)
)
