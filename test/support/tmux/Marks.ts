/**
 * Marks — OSC 133 marks as TermPilot's snippet prints them, for the pure stream tests: each with
 * `;tp=<token>;n=<prompt number>`, numbered as the shell numbers its prompts (the D of prompt n,
 * then A, B, C, D of n + 1), or plain (a standard integration) when the token is null.
 */

export const TOK = "0123456789abcdef"

/** A mark maker with its own prompt numbers, as one shell would print them. */
export const markMaker = (defaultToken: string | null = TOK) => {
  let seq = 0
  let lastLetter = "D"
  return (body: string, token: string | null = defaultToken): string => {
    if (body[0] === "A" && lastLetter === "D") seq++
    lastLetter = body[0]!
    return `\x1b]133;${body}${token === null ? "" : `;tp=${token};n=${seq}`}\x07`
  }
}
