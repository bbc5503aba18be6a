/**
 * Reusable input field Schemas for the tools: strict types (no coercion of "5" or "true"),
 * bounds that appear in the published JSON Schema, defaults, descriptions, and one clear
 * `invalid_request` message per field that names the field and its rule.
 */
import { Effect, Schema } from "effect"
import {
  MAX_COMMAND_CODE_POINTS,
  MAX_SESSION_ID_CODE_POINTS,
  validateCommand,
  validateIdentifier
} from "../domain/CommandValidation.js"

/**
 * Every way a field can fail reports `message` alone: a wrong type (the base schema's `message`)
 * and each failed check (each check's `message`), so a field fails with one clear sentence.
 */
const only = (message: string) => ({ message })

/** The message of an argument a tool does not take (the adapter prefixes the field name). */
export const NOT_A_KNOWN_ARGUMENT = "is not a known argument"

/**
 * A whole number (safe integer), published as plain `"type": "integer"` (Effect 4 would add the
 * safe-integer range as minimum/maximum, which the published schemas never carried).
 */
const isInteger = (annotations?: Schema.Annotations.Filter) =>
  Schema.isInt({ toJsonSchema: () => [{ type: "integer" }, true], ...annotations })

/** An integer (output fields). */
export const Integer = Schema.Number.check(isInteger())

/** The input of a tool without arguments: `{}` only (JSON Schema: no properties, no others). */
export const NoArguments = Schema.Record(Schema.String, Schema.Never.annotate(only(NOT_A_KNOWN_ARGUMENT)))

/** A required identifier (session or request id): non-blank, ≤ 256 code points, no control characters. */
export const identifierField = (field: string, description: string) =>
  Schema.String.annotate(only(`${field} must be a string`)).check(
    Schema.makeFilter((value: string) => validateIdentifier(field, value), {
      description,
      toJsonSchema: () => ({ minLength: 1, maxLength: MAX_SESSION_ID_CODE_POINTS })
    })
  )

/** The command to run: one line, ≤ 8192 code points, no control or bidi-control characters. */
export const commandField = (description: string) =>
  Schema.String.annotate(only("command must be a string")).check(
    Schema.makeFilter((value: string) => validateCommand(value), {
      description,
      toJsonSchema: () => ({ minLength: 1, maxLength: MAX_COMMAND_CODE_POINTS })
    })
  )

interface Bounds<A> {
  readonly min: number
  readonly max: number
  readonly default: A
  readonly description: string
}

/** An optional integer in [min, max] with a default. */
export const integerField = (field: string, bounds: Bounds<number>) => {
  const message = `${field} must be an integer between ${bounds.min} and ${bounds.max}`
  return Schema.Number.annotate(only(message))
    .check(
      isInteger(only(message)),
      Schema.isBetween({ minimum: bounds.min, maximum: bounds.max }, only(message))
    )
    .annotate({ description: bounds.description, default: bounds.default })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(bounds.default)))
}

/** Where a read of a command's output starts: "tail" (default), "head", or a line offset (0 or more). */
export const outputFromField = (description: string) => {
  const message = `from must be "tail", "head" or an integer line offset of 0 or more`
  return Schema.Union([
    Schema.Literals(["tail", "head"]).annotate(only(message)),
    Schema.Number.annotate(only(message)).check(
      isInteger(only(message)),
      Schema.isGreaterThanOrEqualTo(0, only(message))
    )
  ])
    .annotate({ description, default: "tail", ...only(message) })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed<"tail" | "head" | number>("tail")))
}

/**
 * A finite number whose failures all report `message` (Schema.Finite's own check would report
 * "Expected a finite number"). Finite, not Number: a plain Number is published as "a number or
 * the strings NaN/Infinity", the shape its JSON codec would accept.
 */
export const finiteNumber = (message: string) =>
  Schema.Number.annotate(only(message)).check(Schema.isFinite(only(message)))

/** An optional number in (min, max] (exclusive minimum) with a default. */
export const positiveNumberField = (field: string, bounds: Bounds<number>) => {
  const message = `${field} must be a number greater than ${bounds.min} and at most ${bounds.max}`
  return finiteNumber(message)
    .check(
      Schema.isGreaterThan(bounds.min, only(message)),
      Schema.isLessThanOrEqualTo(bounds.max, only(message))
    )
    .annotate({ description: bounds.description, default: bounds.default })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(bounds.default)))
}

/** An optional number in [min, max] (inclusive) with a default. */
export const nonNegativeNumberField = (field: string, bounds: Bounds<number>) => {
  const message = `${field} must be a number between ${bounds.min} and ${bounds.max}`
  return finiteNumber(message)
    .check(Schema.isBetween({ minimum: bounds.min, maximum: bounds.max }, only(message)))
    .annotate({ description: bounds.description, default: bounds.default })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(bounds.default)))
}

/** An optional boolean (JSON true/false only) with a default. */
export const booleanField = (field: string, fallback: boolean, description: string) =>
  Schema.Boolean.annotate({ description, default: fallback, ...only(`${field} must be a boolean`) }).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed(fallback))
  )
