/**
 * An independent re-implementation of tunnel-client's `--mcp-command` splitter, written from the
 * rules in docs/reference/tunnel-client.md: whitespace separates words; '…' is literal; inside
 * "…" a backslash escapes the next byte; outside quotes a backslash escapes the next byte;
 * unterminated quotes or a trailing backslash are errors. No expansion of any kind.
 */
export const splitShellWords = (line: string): Array<string> => {
  const words: Array<string> = []
  let word = ""
  let inWord = false
  let i = 0
  while (i < line.length) {
    const c = line[i]!
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      if (inWord) words.push(word)
      word = ""
      inWord = false
      i++
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1)
      if (end < 0) throw new Error("unterminated single quote")
      word += line.slice(i + 1, end)
      inWord = true
      i = end + 1
    } else if (c === '"') {
      i++
      for (;;) {
        if (i >= line.length) throw new Error("unterminated double quote")
        const d = line[i]!
        if (d === '"') break
        if (d === "\\") {
          if (i + 1 >= line.length) throw new Error("unterminated double quote")
          word += line[i + 1]
          i += 2
        } else {
          word += d
          i++
        }
      }
      inWord = true
      i++
    } else if (c === "\\") {
      if (i + 1 >= line.length) throw new Error("trailing backslash")
      word += line[i + 1]
      inWord = true
      i += 2
    } else {
      word += c
      inWord = true
      i++
    }
  }
  if (inWord) words.push(word)
  return words
}
