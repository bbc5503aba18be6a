/**
 * ScriptText — the `script` template tag the snippets are written with: the text exactly as typed
 * (backslashes kept, so `\e` and `\[` stay shell escapes), where `\${` and `` \` `` stand for `${`
 * and a backtick as in any JS template. The snippets are plain strings, so they survive bundling.
 */
export const script = (strings: TemplateStringsArray): string =>
  strings.raw.join("").replaceAll("\\${", "${").replaceAll("\\`", "`")
