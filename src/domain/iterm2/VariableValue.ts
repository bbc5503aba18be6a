/**
 * VariableValue — how iTerm2 reports a variable's or a property's value, pure: as JSON text, which
 * reads as null when absent or unparsable; and the non-empty string a name, title or path must be
 * to be reported at all.
 */

/** A JSON value iTerm2 reported; null when absent or unparsable. */
export const parseJson = (raw: string | undefined): unknown => {
  if (raw === undefined) return null
  try {
    return JSON.parse(raw) as unknown
  } catch {
    return null
  }
}

/** The value when it is a non-empty string, else null. */
export const asString = (value: unknown): string | null =>
  typeof value === "string" && value.length > 0 ? value : null
