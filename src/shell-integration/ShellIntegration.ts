/**
 * ShellIntegration — which snippet `termpilot shell-integration <shell>` prints (bash, zsh, fish),
 * or that there is none.
 */
import { bashSnippet } from "./BashSnippet.js"
import { fishSnippet } from "./FishSnippet.js"
import { zshSnippet } from "./ZshSnippet.js"

/** The shells with a snippet, in the order the help lists them. */
export const supportedShells = ["bash", "zsh", "fish"] as const
export type SupportedShell = (typeof supportedShells)[number]

const snippets: Record<SupportedShell, string> = { bash: bashSnippet, zsh: zshSnippet, fish: fishSnippet }

export type SnippetChoice =
  | { readonly _tag: "Snippet"; readonly shell: SupportedShell; readonly text: string }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Unknown"; readonly shell: string }

const isSupported = (shell: string): shell is SupportedShell =>
  (supportedShells as ReadonlyArray<string>).includes(shell)

/** The snippet for `shell` (a name like `bash`, or a path like `/bin/zsh`), or why there is none. */
export const chooseSnippet = (shell: string | undefined): SnippetChoice => {
  if (shell === undefined || shell.trim() === "") return { _tag: "Missing" }
  const name = shell.trim().split("/").pop() ?? ""
  if (isSupported(name)) return { _tag: "Snippet", shell: name, text: snippets[name] }
  return { _tag: "Unknown", shell }
}
