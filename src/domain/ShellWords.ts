/**
 * Quoting for tunnel-client's own `--mcp-command` splitter (no shell runs: whitespace separates
 * words, `'…'` is literal, a backslash outside quotes escapes the next byte). Every word is
 * single-quoted, so spaces, quotes, `$`, `~` and globs in paths reach `exec` unchanged.
 */

/** One word, single-quoted; a `'` inside becomes `'\''` (close, escaped quote, reopen). */
export const quoteWord = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`

/** The command line tunnel-client splits back into exactly `words`. */
export const joinWords = (words: ReadonlyArray<string>): string => words.map(quoteWord).join(" ")
