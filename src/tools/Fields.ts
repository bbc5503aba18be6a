/**
 * Reusable input field Schemas for the tools: strict types (no coercion of "5" or "true"),
 * bounds that appear in the published JSON Schema, defaults, descriptions, and one clear
 * `invalid_request` message per field that names the field and its rule.
 */
import { Schema } from "effect"
import {
  MAX_COMMAND_CODE_POINTS,
  MAX_SESSION_ID_CODE_POINTS,
  validateCommand,
  validateIdentifier
} from "../domain/CommandValidation.js"

/** Replace every nested issue message with `message`, so a field fails with one clear sentence. */
const only = (message: string) => ({ message: () => ({ message, override: true }) })

/** The message of an argument a tool does not take (the adapter prefixes the field name). */
export const NOT_A_KNOWN_ARGUMENT = "is not a known argument"

/** The input of a tool without arguments: `{}` only (JSON Schema: no properties, no others). */
export const NoArguments = Schema.Record({
  key: Schema.String,
  value: Schema.Never.annotations({ message: () => NOT_A_KNOWN_ARGUMENT })
})

/** A required identifier (session or request id): non-blank, ≤ 256 code points, no control characters. */
export const identifierField = (field: string, description: string) =>
  Schema.String.annotations({ message: () => `${field} must be a string` }).pipe(
    Schema.filter((value) => validateIdentifier(field, value) ?? true, {
      description,
      jsonSchema: { minLength: 1, maxLength: MAX_SESSION_ID_CODE_POINTS }
    })
  )

/** The command to run: one line, ≤ 8192 code points, no control or bidi-control characters. */
export const commandField = (description: string) =>
  Schema.String.annotations({ message: () => "command must be a string" }).pipe(
    Schema.filter((value) => validateCommand(value) ?? true, {
      description,
      jsonSchema: { minLength: 1, maxLength: MAX_COMMAND_CODE_POINTS }
    })
  )

interface Bounds<A> {
  readonly min: number
  readonly max: number
  readonly default: A
  readonly description: string
}

/** An optional integer in [min, max] with a default. */
export const integerField = (field: string, bounds: Bounds<number>) =>
  Schema.optionalWith(
    Schema.Number.pipe(Schema.int(), Schema.between(bounds.min, bounds.max)).annotations({
      description: bounds.description,
      default: bounds.default,
      ...only(`${field} must be an integer between ${bounds.min} and ${bounds.max}`)
    }),
    { default: () => bounds.default }
  )

/** An optional number in (min, max] (exclusive minimum) with a default. */
export const positiveNumberField = (field: string, bounds: Bounds<number>) =>
  Schema.optionalWith(
    Schema.Number.pipe(Schema.greaterThan(bounds.min), Schema.lessThanOrEqualTo(bounds.max)).annotations({
      description: bounds.description,
      default: bounds.default,
      ...only(`${field} must be a number greater than ${bounds.min} and at most ${bounds.max}`)
    }),
    { default: () => bounds.default }
  )

/** An optional number in [min, max] (inclusive) with a default. */
export const nonNegativeNumberField = (field: string, bounds: Bounds<number>) =>
  Schema.optionalWith(
    Schema.Number.pipe(Schema.between(bounds.min, bounds.max)).annotations({
      description: bounds.description,
      default: bounds.default,
      ...only(`${field} must be a number between ${bounds.min} and ${bounds.max}`)
    }),
    { default: () => bounds.default }
  )

/** An optional boolean (JSON true/false only) with a default. */
export const booleanField = (field: string, fallback: boolean, description: string) =>
  Schema.optionalWith(
    Schema.Boolean.annotations({ description, default: fallback, ...only(`${field} must be a boolean`) }),
    { default: () => fallback }
  )
