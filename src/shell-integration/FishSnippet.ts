/**
 * FishSnippet — `termpilot shell-integration fish`: OSC 133 A/B/C/D and OSC 7 for fish >= 3.6 inside
 * tmux, every 133 mark carrying `;tp=<token>;n=<prompt number>` (specs/security.md, "Marks"). No fork
 * per prompt (fish runs builtins and functions in command substitutions in-process): A/B around the
 * person's own fish_prompt (kept as __tp_user_prompt, called with the real $status), C (with the
 * line fish runs, percent-encoded: `cmd=`) from the fish_preexec event, D and the next prompt's
 * number from fish_postexec (or, after a line that ran
 * nothing, from the fish_prompt event, which comes once per new prompt, not per repaint). fish redraws the cursor
 * after the prompt (`ESC[K CR ESC[<width>C`), which PaneStream follows (PromptColumn.ts). Like the
 * other snippets it records each prompt, and the last command that ran (prompt number, status,
 * directory, line; no times: fish has no clock without a fork), for a TermPilot started later
 * (EarlierPrompt.ts) and exports
 * LC_TERMPILOT for bash or zsh started under it without tmux (ssh); fish itself marks only in tmux.
 */
import { script } from "./ScriptText.js"

export const fishSnippet = script`# TermPilot shell integration for fish >= 3.6. Source it at the END of ~/.config/fish/config.fish
# (after anything that defines fish_prompt). It acts only inside tmux ($TMUX set); elsewhere it does
# nothing.
# Marks: OSC 133 A (prompt start), B (prompt end), C (command starts; ;cmd=<its line,
# percent-encoded, empty past 6 KiB so encoded>), D;exit (command done; none for an empty line), each with
# ;tp=<token>;n=<prompt number>, and OSC 7 (cwd, percent-encoded). The
# token is random per shell and announced once, with the shell's pid, to tmux in the pane option
# @termpilot_tokens; prompt numbers only go up. Nothing forks per prompt. It also announces a
# second secret and exports it as LC_TERMPILOT=<pane>:<secret> for bash or zsh started under it
# that cannot reach tmux (ssh). Before each prompt it records its token, the prompt's number and the
# prompt as it will show, and the last command's prompt number, exit status, directory and line, in
# \${XDG_RUNTIME_DIR:-\${TMPDIR:-/tmp}}/termpilot-<uid>/<its pid>, so a TermPilot started later can
# prove the prompt idle without a keypress and list that command.
if set -q TMUX; and set -q TMUX_PANE; and not set -q __tp_token
    # 128 random bits as 32 hex digits (fish's random builtin).
    function __tp_hex
        printf '%04x' (random 0 65535) (random 0 65535) (random 0 65535) (random 0 65535) \
            (random 0 65535) (random 0 65535) (random 0 65535) (random 0 65535)
    end
    set -g __tp_token (__tp_hex)
    set -g __tp_tag "tp=$__tp_token"
    set -g __tp_n 1
    set -g __tp_announce " $__tp_token:$fish_pid"
    if not string match -q -- "$TMUX_PANE:*" "$LC_TERMPILOT"
        set -l secret (__tp_hex)
        set -gx LC_TERMPILOT "$TMUX_PANE:$secret"
        set -g __tp_announce "$__tp_announce $secret:$fish_pid:nested"
    end

    # Where each prompt is recorded for a TermPilot started later: a directory of ours only (one
    # fork, at start, for the uid).
    set -l base /tmp
    test -n "$TMPDIR"; and set base $TMPDIR
    test -n "$XDG_RUNTIME_DIR"; and set base $XDG_RUNTIME_DIR
    set -g __tp_rec $base/termpilot-(command id -u)
    test -e $__tp_rec; or test -L $__tp_rec; or command mkdir -m 700 -- $__tp_rec 2>/dev/null
    if test -d $__tp_rec; and not test -L $__tp_rec; and test -O $__tp_rec
        set __tp_rec $__tp_rec/$fish_pid
    else
        set __tp_rec
    end

    # The person's prompt, kept; ours prints it between A and B, after OSC 7.
    functions -q fish_prompt; and functions -c fish_prompt __tp_user_prompt
    functions -q __tp_user_prompt; or function __tp_user_prompt; printf '> '; end

    function __tp_status
        return $argv[1]
    end

    function fish_prompt
        set -l ec $status
        set -l shown (__tp_status $ec; __tp_user_prompt | string collect -N)
        printf '\e]7;file://%s%s\a\e]133;A;%s;n=%s\a%s\e]133;B;%s;n=%s\a' $hostname \
            (string escape --style=url -- $PWD) $__tp_tag $__tp_n "$shown" $__tp_tag $__tp_n
        test -n "$__tp_rec"; and printf 'tp2\0%s\0%s\0%s\0\0%s\0%s\0\0\0%s\0%s\0' $__tp_token $__tp_n "$shown" \
            "$__tp_lseq" "$__tp_lec" "$__tp_lcwd" "$__tp_lcmd" >$__tp_rec
    end

    # The last command that ran: its prompt number, status, directory and line (percent-encoded).
    set -g __tp_lseq ''
    set -g __tp_lec ''
    set -g __tp_lcwd ''
    set -g __tp_lcmd ''

    # C with the line fish runs (percent-encoded; left out past 6 KiB so encoded), and where it runs.
    function __tp_preexec --on-event fish_preexec
        set -g __tp_cwd (string escape --style=url -- $PWD)
        set -g __tp_cmd (string escape --style=url -- $argv[1])
        test (string length -- "$__tp_cmd") -le 6144; or set -g __tp_cmd ''
        printf '\e]133;C;%s;n=%s;cmd=%s\a' $__tp_tag $__tp_n "$__tp_cmd"
    end

    # D with the status of what ran (ending any escape string its output left open first), then
    # the next prompt's number.
    set -g __tp_ended 1
    function __tp_postexec --on-event fish_postexec
        set -l ec $status
        printf '\030\e\\\\\e]133;D;%s;%s;n=%s\a' $ec $__tp_tag $__tp_n
        set -g __tp_lseq $__tp_n
        set -g __tp_lec $ec
        set -g __tp_lcwd "$__tp_cwd"
        set -g __tp_lcmd "$__tp_cmd"
        set -g __tp_n (math $__tp_n + 1)
        set -g __tp_ended 1
    end

    # A new prompt (not a repaint of this one) after a line that ran nothing: D without a status.
    function __tp_newprompt --on-event fish_prompt
        if test $__tp_ended = 0
            printf '\030\e\\\\\e]133;D;%s;n=%s\a' $__tp_tag $__tp_n
            set -g __tp_n (math $__tp_n + 1)
        end
        set -g __tp_ended 0
    end

    command tmux set -p -a -t "$TMUX_PANE" @termpilot_tokens "$__tp_announce" >/dev/null 2>&1
end
`
