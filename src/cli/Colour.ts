/**
 * Colour in human output: ANSI colour codes only on a terminal, and never when NO_COLOR is set to
 * anything but "" (https://no-color.org). effect/cli decides colour for help and errors together
 * (from stdout alone), so the CLI renders them in colour when either stream may carry it and runs
 * with a Console that strips colour codes from what goes to a stream that is no TTY.
 */
import { Config, Console, Effect, Option } from "effect"

/** SGR sequences (colour, bold…): the only escapes the help and our human commands emit. */
const SGR = /\u001b\[[0-9;]*m/g

export const stripColour = (text: string): string => text.replace(SGR, "")

/** Whether a stream may carry colour: it is a terminal and NO_COLOR is unset or empty. */
export const colourAllowed = (isTTY: boolean | undefined, noColor: string | undefined): boolean =>
  isTTY === true && (noColor === undefined || noColor === "")

const plainArgs = (args: ReadonlyArray<unknown>) =>
  args.map((arg) => (typeof arg === "string" ? stripColour(arg) : arg))

/** `base` with colour stripped from what goes to stdout (log, info, debug) and/or stderr (error, warn). */
export const plainConsole = (
  base: Console.Console,
  plain: { readonly stdout: boolean; readonly stderr: boolean }
): Console.Console => {
  const out = (f: (...args: ReadonlyArray<unknown>) => void, strip: boolean) =>
    strip ? (...args: ReadonlyArray<unknown>) => f(...plainArgs(args)) : f
  // Everything else (table, group, time…) is `base`'s own, called on `base`.
  const console: Console.Console = Object.create(base)
  return Object.assign(console, {
    log: out((...args) => base.log(...args), plain.stdout),
    info: out((...args) => base.info(...args), plain.stdout),
    debug: out((...args) => base.debug(...args), plain.stdout),
    error: out((...args) => base.error(...args), plain.stderr),
    warn: out((...args) => base.warn(...args), plain.stderr)
  })
}

/** NO_COLOR through Effect's Config (undefined when unset or unreadable). */
export const noColorSetting: Effect.Effect<string | undefined> = Config.option(
  Config.String("NO_COLOR")
).pipe(
  Effect.map(Option.getOrUndefined),
  Effect.orElseSucceed(() => undefined)
)

/** Whether stdout and/or stderr may carry colour (NO_COLOR read through Effect's Config). */
export const colourStreams: Effect.Effect<{ readonly stdout: boolean; readonly stderr: boolean }> =
  Effect.map(noColorSetting, (noColor) => ({
    stdout: colourAllowed(process.stdout.isTTY, noColor),
    stderr: colourAllowed(process.stderr.isTTY, noColor)
  }))

/** Run `self` (the CLI) with colour only where it is allowed. */
export const withColourPolicy = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const colour = yield* colourStreams
    const base = yield* Console.Console
    return yield* Effect.provideService(
      self,
      Console.Console,
      plainConsole(base, { stdout: !colour.stdout, stderr: !colour.stderr })
    )
  })
