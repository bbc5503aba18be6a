/**
 * ShellIntegration — which snippet `termpilot shell-integration <shell>` prints, and why a shell
 * has none. fish is known but refused: fish ends every prompt draw with its own cursor move
 * (`ESC[K CR ESC[<n>C`), so a B mark inside the prompt is never the last thing printed.
 */
import { bashSnippet } from "./BashSnippet.js"
import { zshSnippet } from "./ZshSnippet.js"

/** The shells with a snippet, in the order the help lists them. */
export const supportedShells = ["bash", "zsh"] as const
export type SupportedShell = (typeof supportedShells)[number]

const snippets: Record<SupportedShell, string> = { bash: bashSnippet, zsh: zshSnippet }

export type SnippetChoice =
  | { readonly _tag: "Snippet"; readonly shell: SupportedShell; readonly text: string }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Unsupported"; readonly shell: string; readonly why: string }
  | { readonly _tag: "Unknown"; readonly shell: string }

const unsupported: Record<string, string> = {
  fish:
    "fish is not supported yet: fish redraws the cursor position (ESC[K, CR, ESC[<n>C) after every " +
    "prompt it draws, so the prompt-end mark (OSC 133;B) cannot be the last thing the prompt prints and " +
    "TermPilot would never see the pane as ready."
}

const isSupported = (shell: string): shell is SupportedShell =>
  (supportedShells as ReadonlyArray<string>).includes(shell)

/** The snippet for `shell` (a name like `bash`, or a path like `/bin/zsh`), or why there is none. */
export const chooseSnippet = (shell: string | undefined): SnippetChoice => {
  if (shell === undefined || shell.trim() === "") return { _tag: "Missing" }
  const name = shell.trim().split("/").pop() ?? ""
  if (isSupported(name)) return { _tag: "Snippet", shell: name, text: snippets[name] }
  const why = unsupported[name]
  if (why !== undefined) return { _tag: "Unsupported", shell: name, why }
  return { _tag: "Unknown", shell }
}
