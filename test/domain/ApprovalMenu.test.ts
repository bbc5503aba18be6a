/**
 * The tmux approval menu's pure parts: which client is asked (never a control or read-only client;
 * the one showing the pane, the most recently active), text made safe to draw (no control, format
 * or parser character survives), long lines wrapped without losing a character, and the script:
 * only "Allow once" takes the secret lock, the unlock follows, and a prompt that cannot fit is refused.
 */
import { describe, expect, it } from "vitest"
import { approvalMessage, nameNonAscii } from "../../src/domain/ApprovalPrompt.js"
import {
  type ApprovalPane,
  approvalScript,
  chooseClient,
  menuSafe,
  tmuxQuoted,
  wrapLines
} from "../../src/domain/tmux/ApprovalMenu.js"

const target: ApprovalPane = {
  pane_id: "%5",
  window_id: "@2",
  session_id: "$1",
  session_name: "main",
  window_index: "1",
  window_name: "build"
}
/** A list-clients row: control, readonly, activity, tty, window, session, width, height. */
const row = (fields: ReadonlyArray<string>) => fields.join("|")

describe("chooseClient", () => {
  it("never a control or read-only client; the one showing the pane's window, the most recently active", () => {
    const lines = [
      row(["1", "0", "900", "/dev/pts/9", "@2", "$1", "80", "24"]), // a control client (TermPilot's)
      row(["0", "1", "800", "/dev/pts/8", "@2", "$1", "80", "24"]), // read-only
      row(["0", "0", "700", "/dev/pts/7", "@3", "$1", "80", "24"]), // same session, other window, newer
      row(["0", "0", "100", "/dev/pts/1", "@2", "$1", "100", "40"]), // shows the pane, older
      row(["0", "0", "200", "/dev/pts/2", "@2", "$1", "90", "30"]) // shows the pane, newest of those
    ]
    expect(chooseClient(lines, target)).toEqual({ tty: "/dev/pts/2", width: 90, height: 30, shows: true })
    expect(chooseClient(lines.slice(0, 3), target)).toMatchObject({ tty: "/dev/pts/7", shows: false })
    expect(chooseClient(lines.slice(0, 2), target)).toBeNull()
    expect(chooseClient([row(["0", "0", "1", "/dev/pts/1;x", "@2", "$1", "80", "24"])], target)).toBeNull()
  })
})

describe("the menu's text", () => {
  it("names every character outside printable ASCII except its own marks, and escapes tmux's parser", () => {
    expect(menuSafe("a\x1b[2Jb\u0430\u202e»«")).toBe("a<U+001B>[2Jb<U+0430><U+202E>»«")
    expect(tmuxQuoted('#{pane_id} "$HOME" \\')).toBe('"##{pane_id} \\"\\$HOME\\" \\\\"')
  })

  it("wraps a long line with ↳ marks and loses no character; the action exactly at the width, prose after a space", () => {
    const long = "x".repeat(25)
    const lines = wrapLines(long, 10)
    expect(lines).toEqual(["xxxxxxxxxx", "↳ xxxxxxxx", "↳ xxxxxxx"])
    expect(lines.map((l) => l.replace(/^↳ /, "")).join("")).toBe(long)
    const action = "»echo a b c d e«"
    expect(wrapLines(action, 10)).toEqual(["»echo a b ", "↳ c d e«"])
    expect(wrapLines("then types this command", 10)).toEqual(["then ", "↳ types ", "↳ this ", "↳ command"])
    expect(
      wrapLines("then types this command", 10)
        .map((l) => l.replace(/^↳ /, ""))
        .join("")
    ).toBe("then types this command")
  })

  it("the dialog's text with names: the action's characters named in place, counted as the action", () => {
    const message = approvalMessage(
      {
        label: "Command",
        shown: "echo \u0430\x1b",
        effect: "runs it",
        reason: "approval policy 'always'",
        target: {
          session_id: "tmux:x:1.2:%5",
          backend: "tmux",
          window_title: "main\x1b]0;evil\x07",
          tab_title: null,
          session_title: null,
          hostname: null,
          username: null,
          cwd: null,
          job_name: null,
          via: null
        },
        localHost: "h",
        timeoutSeconds: 5
      },
      nameNonAscii
    )
    expect(message).toContain("exactly, 7 characters")
    expect(message).toContain("»echo <U+0430><U+001B>«")
    expect(message).toContain("U+0430 at position 5, U+001B at position 6")
    expect(message).not.toContain("\x1b")
    expect(message).not.toContain("\x07")
  })
})

describe("approvalScript", () => {
  const spec = {
    asker: "cli#1",
    message: "Command: »rm -rf $HOME/#x«",
    pane: 5,
    target,
    client: { tty: "/dev/pts/2", width: 100, height: 40, shows: true },
    channel: "termpilot-approval-0123abcd"
  }

  it("lines are disabled items; Decline comes first; only Allow once locks the channel; the unlock follows", () => {
    const built = approvalScript(spec)
    if (!("script" in built)) throw new Error(built.tooSmall)
    const [menu, unlock, end] = built.script.split("\n")
    expect(unlock).toBe("wait-for -U termpilot-approval-0123abcd")
    expect(end).toBe("")
    expect(menu).toMatch(/^display-menu -c "\/dev\/pts\/2" -t %5 -T .* -x C -y C -- "-/)
    expect(menu).toContain('"-Command: »rm -rf \\$HOME/##x«" "" ""')
    expect(menu).toContain('The MCP client \\"cli##1\\" asks')
    expect(menu!.indexOf('"Decline (nothing is sent)" n ""')).toBeLessThan(menu!.indexOf('"Allow once" y'))
    expect(menu!.endsWith('"Allow once" y "wait-for -L termpilot-approval-0123abcd"')).toBe(true)
    expect(menu!.match(/termpilot-approval-0123abcd/g)).toHaveLength(1)
  })

  it("a prompt that cannot fit the client is refused", () => {
    expect(approvalScript({ ...spec, client: { ...spec.client, height: 8 } })).toMatchObject({
      tooSmall: expect.stringContaining("has 8")
    })
    expect(approvalScript({ ...spec, client: { ...spec.client, width: 20 } })).toMatchObject({
      tooSmall: expect.stringContaining("20 columns")
    })
  })
})
