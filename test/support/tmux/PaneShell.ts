/**
 * PaneShell — the shell a TmuxWorld pane runs: a real interactive bash (or zsh, or fish) with the prompt
 * `tp$ `, that records every line it executed (from its own history, in PROMPT_COMMAND/precmd,
 * so the user's hook chain is exercised too) and, unless `plain`, sources TermPilot's shell-integration
 * snippet — all wrapped in util-linux `script -I` so that the pane's input is logged (Recorder).
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { chooseSnippet } from "../../../src/shell-integration/ShellIntegration.js"
import { Recorder } from "./Recorder.js"

/**
 * `bash`/`zsh`/`fish`: with TermPilot's snippet; `plain`: bash without any shell integration;
 * `plain-fish`: fish without it; `foreign`: bash with another terminal's standard marks (extra
 * parameters, no token).
 */
export type ShellKind = "bash" | "zsh" | "fish" | "plain" | "plain-fish" | "foreign"

/**
 * Writes the snippet exactly as `termpilot shell-integration <shell>` prints it (what a user pastes
 * into their rc file) into `dir`; its path.
 */
export const writeSnippet = (dir: string, shell: "bash" | "zsh" | "fish"): string => {
  const choice = chooseSnippet(shell)
  if (choice._tag !== "Snippet") throw new Error(`no ${shell} snippet: ${choice._tag}`)
  const path = join(dir, `termpilot.${shell}`)
  writeFileSync(path, choice.text)
  return path
}

/** `tp_argv ARGS…` writes its argv, NUL-separated, to the pane's `argv` file (what the shell passed). */
export const writeArgvTool = (binDir: string): void => {
  mkdirSync(binDir, { recursive: true })
  const path = join(binDir, "tp_argv")
  writeFileSync(path, `#!/bin/sh\nprintf '%s\\0' "$@" > "$TPW_PANE_DIR/argv"\n`, { mode: 0o755 })
}

const bashRc = (snippet: string | null): string =>
  [
    "PS1='tp$ '",
    'echo $$ > "$TPW_PANE_DIR/shell.pid"',
    "HISTSIZE=1000; HISTCONTROL=; HISTIGNORE=; unset HISTFILE",
    // The user's own hook: it must keep running, and see the command's $?, with the snippet in.
    '__tpw_record() { local ec=$?; HISTTIMEFORMAT= builtin history 1 >> "$TPW_PANE_DIR/executed.log"; echo >> "$TPW_PANE_DIR/prompts"; return $ec; }',
    "PROMPT_COMMAND=__tpw_record",
    snippet === null ? "" : `source '${snippet}'`,
    ""
  ].join("\n")

const zshRc = (snippet: string): string =>
  [
    "PS1='tp$ '",
    'echo $$ > "$TPW_PANE_DIR/shell.pid"',
    "HISTSIZE=1000; SAVEHIST=0; unsetopt hist_ignore_dups hist_ignore_space",
    'precmd() { local ec=$?; print -r -- "$(fc -l -1)" >> "$TPW_PANE_DIR/executed.log"; echo >> "$TPW_PANE_DIR/prompts"; return $ec }',
    `source '${snippet}'`,
    ""
  ].join("\n")

const fishRc = (snippet: string | null): string =>
  [
    "function fish_prompt; printf 'tp$ '; end",
    'echo $fish_pid > "$TPW_PANE_DIR/shell.pid"',
    "set -g __tpw_n 0",
    'function __tpw_record --on-event fish_preexec; set -g __tpw_n (math $__tpw_n + 1); printf \'%5d  %s\\n\' $__tpw_n "$argv" >> "$TPW_PANE_DIR/executed.log"; end',
    'function __tpw_prompt --on-event fish_prompt; echo >> "$TPW_PANE_DIR/prompts"; end',
    snippet === null ? "" : `source '${snippet}'`,
    ""
  ].join("\n")

/** One pane's files: its recorder log, its executed-lines log, its argv file. */
export class PaneFiles {
  readonly recorder: Recorder

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true })
    this.recorder = new Recorder(join(dir, "input.log"))
  }

  /** The `script`-wrapped shell command for tmux, writing the rc files it needs. */
  /**
   * `argv0`: the name the recorder (`script`) runs under (bash's `exec -a`), which is what tmux
   * reports as the pane's `pane_current_command` (it reads the foreground group's argv[0]): a
   * remote pane's only foreground fact, so a recorded shell looks to tmux as the shell itself does.
   */
  shellCommand(kind: ShellKind, argv0?: string): string {
    const log = this.recorder.path
    const inner = (() => {
      if (kind === "zsh") {
        writeFileSync(join(this.dir, ".zshrc"), zshRc(writeSnippet(this.dir, "zsh")))
        return `env ZDOTDIR='${this.dir}' zsh -i`
      }
      if (kind === "fish" || kind === "plain-fish") {
        const rc = join(this.dir, "rc.fish")
        writeFileSync(rc, fishRc(kind === "fish" ? writeSnippet(this.dir, "fish") : null))
        return `fish --no-config -C 'source ${rc}'`
      }
      const rc = join(this.dir, "rc.bash")
      const marks =
        kind === "plain"
          ? null
          : kind === "foreign"
            ? join(import.meta.dirname, "foreign-marks.bash")
            : writeSnippet(this.dir, "bash")
      writeFileSync(rc, bashRc(marks))
      return `bash --noprofile --rcfile '${rc}' -i`
    })()
    const as = argv0 === undefined ? "" : `-a ${argv0} `
    return `exec ${as}script -q -f -I '${log}' -O /dev/null -c "${inner}"`
  }

  /**
   * The lines the shell read and ran, in order (from its history, one entry per number), exactly:
   * every shell's record is the number, two characters (`  `, or `* ` for an edited bash entry),
   * then the line with its own leading and trailing blanks.
   */
  executed(): ReadonlyArray<string> {
    const path = join(this.dir, "executed.log")
    if (!existsSync(path)) return []
    const seen = new Map<number, string>()
    for (const line of readFileSync(path, "utf8").split("\n")) {
      const match = /^\s*(\d+)[* ] (.*)$/.exec(line)
      if (match !== null) seen.set(Number(match[1]), match[2]!)
    }
    return [...seen.entries()].sort(([a], [b]) => a - b).map(([, text]) => text)
  }

  /** How many prompts the shell has drawn after its first (one per PROMPT_COMMAND/precmd run). */
  prompts(): number {
    const path = join(this.dir, "prompts")
    return existsSync(path) ? readFileSync(path, "utf8").length : 0
  }

  /** The pid of the pane's shell (under `script`), once it has started. */
  shellPid(): number | null {
    const path = join(this.dir, "shell.pid")
    return existsSync(path) ? Number(readFileSync(path, "utf8").trim()) : null
  }

  /**
   * The command owning the terminal of the pane's shell (the `comm` of its tty's foreground process
   * group, from /proc), or null. A shell reports a command's start just before the program takes the
   * terminal: tests that interrupt a program wait for it here first.
   */
  foreground(): string | null {
    const shell = this.shellPid()
    if (shell === null) return null
    const read = (path: string): string => {
      try {
        return readFileSync(path, "utf8")
      } catch {
        return ""
      }
    }
    const stat = read(`/proc/${shell}/stat`)
    const tpgid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[5]
    return tpgid === undefined ? null : read(`/proc/${tpgid}/comm`).trim() || null
  }

  /**
   * Whether the shell's line editor is reading keys: its terminal is out of canonical mode. Until
   * then (between a prompt hook and the editor's start) the terminal itself echoes what is typed,
   * before the prompt the editor draws next.
   */
  lineEditing(): boolean {
    const shell = this.shellPid()
    if (shell === null) return false
    try {
      const tty = readlinkSync(`/proc/${shell}/fd/0`)
      return /(^|\s)-icanon(\s|$)/.test(
        execFileSync("stty", ["-F", tty, "-a"], { encoding: "utf8", timeout: 5_000 })
      )
    } catch {
      return false
    }
  }

  /** The argv of the last `tp_argv`, or null when it never ran. */
  argv(): ReadonlyArray<string> | null {
    const path = join(this.dir, "argv")
    if (!existsSync(path)) return null
    return readFileSync(path, "utf8").split("\0").slice(0, -1)
  }
}
