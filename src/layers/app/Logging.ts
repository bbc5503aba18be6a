/**
 * Logging for every TermPilot process: stdout may carry JSON-RPC, so every log line goes to
 * stderr. Replaces Effect's default logger (console.log) with logfmt on console.error, keeping
 * only the tracer logger (span events) beside it.
 */
import { Layer, Logger } from "effect"

/**
 * Log lines as logfmt on stderr; Effect's default logger does not survive (the built-in loggers
 * that honour LogToStderr would write to stderr too, should any be provided inside).
 */
export const StderrLogging: Layer.Layer<never> = Layer.mergeAll(
  Logger.layer([Logger.withConsoleError(Logger.formatLogFmt), Logger.tracerLogger]),
  Layer.succeed(Logger.LogToStderr, true)
)
