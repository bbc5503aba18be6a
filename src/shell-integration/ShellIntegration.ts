/**
 * ShellIntegration — which snippet `termpilot shell-integration <shell>` prints, and why a shell
 * has none. fish is known but refused: fish (3.6, checked by test/shell-integration/FishRedraw.test.ts)
 * ends every draw of a non-empty prompt with its own cursor move (`ESC[K CR ESC[<n>C`) after the
 * prompt's last byte, so the CR follows any B mark the prompt prints, and PaneStream counts a CR
 * after B as typed input.
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
    "fish is not supported yet: after drawing any non-empty prompt, fish moves the cursor back into " +
    "place with a carriage return and a cursor-forward sequence (ESC[K CR ESC[<n>C), after everything " +
    "its prompt functions print, so the prompt-end mark (OSC 133;B) is always followed by a carriage " +
    "return, which TermPilot must count as typed input: a fish prompt would never read as ready. " +
    "Run bash or zsh in the pane for run_command."
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
