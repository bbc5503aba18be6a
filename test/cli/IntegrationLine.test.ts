/**
 * The line `termpilot doctor` gives for a pane without TermPilot's integration, by the pane's
 * shell (its current command, a login shell's leading `-` dropped): each writes that shell's
 * snippet to a file and sources it from that shell's own rc file.
 */
import { describe, expect, it } from "vitest"
import { integrationLine } from "../../src/layers/backends/tmux/Doctor.js"

describe("the doctor's install line", () => {
  it.each([
    ["bash", "termpilot shell-integration bash > ~/.termpilot-integration.bash", "~/.bashrc"],
    ["-bash", "termpilot shell-integration bash > ~/.termpilot-integration.bash", "~/.bashrc"],
    ["zsh", "termpilot shell-integration zsh > ~/.termpilot-integration.zsh", "~/.zshrc"],
    [
      "fish",
      "termpilot shell-integration fish > ~/.config/fish/termpilot-integration.fish",
      "~/.config/fish/config.fish"
    ]
  ])("%s: writes the snippet and sources it from its rc file", (command, write, rc) => {
    const line = integrationLine(command)
    expect(line).toContain(write)
    expect(line).toMatch(new RegExp(`at the end of ${rc.replace(/[.~/]/g, "\\$&")}$`))
  })
})
