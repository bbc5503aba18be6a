/**
 * `termpilot shell-integration bash|zsh|fish`: prints the shell-integration snippet (OSC 133 prompt
 * marks with a per-shell token, and OSC 7) to source from the shell's rc file. No shell or an
 * unknown one: an error naming the choices, exit 2.
 */
import { Console, Effect, Option } from "effect"
import { Argument, Command } from "effect/cli"
import { chooseSnippet, supportedShells } from "../shell-integration/ShellIntegration.js"
import { emit, refusal } from "./chatgpt/Outcome.js"

const choices = supportedShells.join(", ")

const shell = Argument.String("shell").pipe(
  Argument.withDescription(`The shell to integrate: ${supportedShells.join(" or ")}.`),
  Argument.optional
)

/** What `termpilot shell-integration [shell]` does: the snippet on stdout, or a refusal (exit 2). */
export const shellIntegrationProgram = (name: string | undefined) => {
  const choice = chooseSnippet(name)
  switch (choice._tag) {
    case "Snippet":
      return Console.log(choice.text.trimEnd())
    case "Missing":
      return emit(refusal("missing_shell", `name your shell: ${choices} (see --help).`), false)
    case "Unknown":
      return emit(
        refusal("unknown_shell", `unknown shell "${choice.shell}": choose one of ${choices}.`),
        false
      )
  }
}

export const shellIntegrationCommand = Command.make("shell-integration", { shell }, ({ shell }) =>
  Effect.suspend(() => shellIntegrationProgram(Option.getOrUndefined(shell)))
).pipe(
  Command.withDescription(
    "Print the shell integration for bash, zsh or fish (3.6 or later): prompt marks (OSC 133, with a random per-shell token " +
      "announced to tmux) and the current directory (OSC 7), so TermPilot knows when a tmux pane is at " +
      "an idle prompt and what a command printed and returned. It acts only inside tmux and does nothing " +
      "elsewhere. Install (recommended, no node start per shell; re-run after upgrading TermPilot): " +
      "`termpilot shell-integration bash > ~/.termpilot-integration.bash`, then add " +
      "`source ~/.termpilot-integration.bash` at the END of ~/.bashrc (zsh: the same with zsh and ~/.zshrc; " +
      "fish: `termpilot shell-integration fish > ~/.config/fish/termpilot-integration.fish` and " +
      "`source ~/.config/fish/termpilot-integration.fish` at the END of ~/.config/fish/config.fish). " +
      'Or add `eval "$(termpilot shell-integration bash)"` at the end of ~/.bashrc (starts node in every ' +
      "new shell). Source it after your prompt, PROMPT_COMMAND, fish_prompt or prompt framework."
  )
)
