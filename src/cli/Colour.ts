/**
 * Colour in human output: ANSI colour codes only on a terminal, and never when NO_COLOR is set to
 * anything but "" (https://no-color.org). @effect/cli always renders help and errors in colour, so
 * the CLI runs with a Console that strips colour codes from what goes to a stream that is no TTY.
 */
import { Config, type Console, Effect, Option } from "effect"

/** SGR sequences (colour, bold…): the only escapes the help and our human commands emit. */
const SGR = /\u001b\[[0-9;]*m/g

export const stripColour = (text: string): string => text.replace(SGR, "")

/** Whether a stream may carry colour: it is a terminal and NO_COLOR is unset or empty. */
export const colourAllowed = (isTTY: boolean | undefined, noColor: string | undefined): boolean =>
  isTTY === true && (noColor === undefined || noColor === "")

const plainArgs = (args: ReadonlyArray<unknown>) =>
  args.map((arg) => (typeof arg === "string" ? stripColour(arg) : arg))

type Variadic<R> = (...args: ReadonlyArray<unknown>) => R

/** `base` with colour stripped from what goes to stdout (log, info, debug) and/or stderr (error, warn). */
export const plainConsole = (
  base: Console.Console,
  plain: { readonly stdout: boolean; readonly stderr: boolean }
): Console.Console => {
  const out = <R>(f: Variadic<R>, strip: boolean): Variadic<R> =>
    strip ? (...args) => f(...plainArgs(args)) : f
  return {
    ...base,
    log: out(base.log, plain.stdout),
    info: out(base.info, plain.stdout),
    debug: out(base.debug, plain.stdout),
    error: out(base.error, plain.stderr),
    warn: out(base.warn, plain.stderr),
    unsafe: {
      ...base.unsafe,
      log: out(base.unsafe.log.bind(base.unsafe), plain.stdout),
      info: out(base.unsafe.info.bind(base.unsafe), plain.stdout),
      debug: out(base.unsafe.debug.bind(base.unsafe), plain.stdout),
      error: out(base.unsafe.error.bind(base.unsafe), plain.stderr),
      warn: out(base.unsafe.warn.bind(base.unsafe), plain.stderr)
    }
  }
}

/** Run `self` (the CLI) with colour only where it is allowed. Reads NO_COLOR through Effect's Config. */
export const withColourPolicy = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const noColor = Option.getOrUndefined(
      yield* Config.option(Config.string("NO_COLOR")).pipe(Effect.orElseSucceed(() => Option.none<string>()))
    )
    const base = yield* Effect.console
    const plain = {
      stdout: !colourAllowed(process.stdout.isTTY, noColor),
      stderr: !colourAllowed(process.stderr.isTTY, noColor)
    }
    return yield* Effect.withConsole(self, plainConsole(base, plain))
  })
