/**
 * BashSnippet — `termpilot shell-integration bash`: OSC 133 A/B/C/D and OSC 7 for bash >= 4.4 inside
 * tmux, and in shells started under a TermPilot-watched pane without tmux (ssh, containers, sudo:
 * `$LC_TERMPILOT`, which the pane's snippet exports and ssh forwards), every 133 mark carrying
 * `;tp=<token>[;sh=<shell id>];n=<prompt number>` (specs/security.md, "Marks" and "Nested shells").
 * No fork per prompt: D and OSC 7 come from the first PROMPT_COMMAND hook, C from PS0, A/B from PS1;
 * the last hook writes the next prompt's number into them, and records the prompt it is about to draw
 * (token, number, expanded prompt) and the last command that ran (its prompt number, status, times
 * from $EPOCHREALTIME, directory, line) in a file of its own for a TermPilot started later
 * (EarlierPrompt.ts). bash hands the line to no hook, so the first hook takes it from bash's own
 * history (`fc` into a file of ours, read back with `read`: builtins, no fork), only when history
 * saved exactly that line, and sends it in D (`cmd=`).
 */
import { script } from "./ScriptText.js"

export const bashSnippet = script`# TermPilot shell integration for bash >= 4.4. Source it at the END of ~/.bashrc (after anything that
# sets PS1, PS0 or PROMPT_COMMAND). It acts only inside tmux ($TMUX set), or in a shell started from
# a TermPilot-watched tmux pane ($LC_TERMPILOT set: ssh forwards LC_* by default); elsewhere it does
# nothing. Install it unchanged on servers too.
# Marks: OSC 133 A (prompt start), B (prompt end), C (command starts), D[;exit] (command done, no exit
# when nothing ran; ;cmd=<its line from history, percent-encoded, empty when history did not save
# exactly it or past 2 KiB>), each with ;tp=<token>;n=<prompt number>, and OSC 7 (cwd, percent-encoded). The
# token is random per shell and announced once, with the shell's pid, to tmux in the pane option
# @termpilot_tokens; prompt numbers only go up. Nothing forks per prompt. A shell in tmux also
# announces a second secret and exports it as LC_TERMPILOT=<pane>:<secret> for the shells started
# under it that cannot reach tmux; such a shell marks with a random shell id and, as its token, the
# sha256 of "<secret>:<shell id>", so its marks never show the secret. Before each prompt a shell in
# tmux records its token, the prompt's number and the prompt as it will show, and the last command's
# prompt number, exit status, start and end times, directory and line, in
# \${XDG_RUNTIME_DIR:-\${TMPDIR:-/tmp}}/termpilot-$UID/<its pid>, so a TermPilot started later can
# prove the prompt idle without a keypress and list that command.
if [[ ( -n \${TMUX-} || \${LC_TERMPILOT-} == %[0-9]*:[0-9a-f]* ) && -z \${__tp_token-} ]]; then
  # 128 random bits as 32 hex digits into the variable named $1.
  __tp_hex() {
    local __h
    if [[ -n \${SRANDOM-} ]]; then
      printf -v __h '%08x%08x%08x%08x' "$SRANDOM" "$SRANDOM" "$SRANDOM" "$SRANDOM"
    else
      __h=$(command od -An -N16 -tx1 /dev/urandom 2>/dev/null)
      __h=\${__h//[!0-9a-f]/}
      if (( \${#__h} < 32 )); then
        printf -v __h '%04x%04x%04x%04x%04x%04x%04x%04x' "$RANDOM" "$RANDOM" "$RANDOM" "$RANDOM" \
          "$RANDOM" "$RANDOM" "$RANDOM" "$RANDOM"
      fi
    fi
    printf -v "$1" '%s' "$__h"
  }
  __tp_announce= __tp_rec=
  if [[ -n \${TMUX-} && -n \${TMUX_PANE-} ]]; then
    __tp_hex __tp_token
    __tp_tag="tp=$__tp_token"
    __tp_announce=" $__tp_token:$$"
    # Where each prompt is recorded for a TermPilot started later: a directory of ours only.
    __tp_rec=\${XDG_RUNTIME_DIR:-\${TMPDIR:-/tmp}}/termpilot-$UID
    [[ -e $__tp_rec || -L $__tp_rec ]] || command mkdir -m 700 -- "$__tp_rec" 2>/dev/null
    [[ -d $__tp_rec && ! -L $__tp_rec && -O $__tp_rec ]] && __tp_rec+=/$$ || __tp_rec=
    if [[ \${LC_TERMPILOT-} != "$TMUX_PANE:"* ]]; then
      __tp_hex __tp_secret
      export LC_TERMPILOT="$TMUX_PANE:$__tp_secret"
      __tp_announce+=" $__tp_secret:$$:nested"
    fi
  elif [[ -n \${TMUX-} ]]; then
    __tp_hex __tp_token
    __tp_tag="tp=$__tp_token"
  else
    # Prove the pane's secret without showing it: the token is sha256("<secret>:<shell id>") (one fork,
    # at start). Without a hasher the marks cannot be verified, and TermPilot refuses the pane.
    __tp_hex __tp_sh
    __tp_sh=\${__tp_sh:0:16}
    __tp_token=$(printf '%s:%s' "\${LC_TERMPILOT#*:}" "$__tp_sh" | { command sha256sum || command shasum -a 256; } 2>/dev/null)
    __tp_token=\${__tp_token%% *}
    __tp_tag="tp=\${__tp_token:-0000000000000000};sh=$__tp_sh"
  fi
  __tp_ran=0 __tp_t0=0 __tp_h=0 __tp_hp=0 __tp_pwd= __tp_url= __tp_enc= __tp_n=0 __tp_a= __tp_b= __tp_c=
  # The last command that ran: its prompt number, status, start and end ($EPOCHREALTIME, bash >= 5.0),
  # directory and line (percent-encoded), for the record.
  __tp_lseq= __tp_lec= __tp_lt0= __tp_lt1= __tp_lcwd= __tp_lcmd=
  # The marks of prompt number $__tp_n. PS0 is expanded after a line is read and before it runs (not
  # for an empty line or a syntax error). The assignments in the array subscript run in this shell:
  # they flag "a command ran", keep its start in microseconds (bash >= 5.0: $EPOCHREALTIME, read
  # only where it exists, for set -u) and its history number, with no fork.
  __tp_clock=
  [[ -n \${EPOCHREALTIME-} ]] && __tp_clock=',__tp_t0=10#0\${EPOCHREALTIME//[^0-9]/}'
  __tp_marks() {
    __tp_a='\[\e]133;A;'$__tp_tag';n='$__tp_n'\a\]'
    __tp_b='\[\e]133;B;'$__tp_tag';n='$__tp_n'\a\]'
    __tp_c='\${__tp_noarray[(__tp_ran=1'$__tp_clock',__tp_h=HISTCMD)]-}\e]133;C;'$__tp_tag';n='$__tp_n'\a'
  }
  (( BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1) )) && __tp_arrays=1 || __tp_arrays=0

  # First prompt hook: D with the status of what ran, then OSC 7. Returns that status so the user's
  # PROMPT_COMMAND sees it.
  __tp_precmd() {
    local ec=$? now=\${EPOCHREALTIME-}
    if (( __tp_ran )); then
      __tp_line
      printf '\030\e\\\e]133;D;%s;%s;n=%s;cmd=%s\a' "$ec" "$__tp_tag" "$__tp_n" "$__tp_lcmd"
      __tp_lseq=$__tp_n __tp_lec=$ec __tp_lt0= __tp_lt1=\${now/[^0-9]/.} __tp_lcwd=$__tp_url
      if (( __tp_t0 > 999999 )); then __tp_lt0=\${__tp_t0%??????}.\${__tp_t0: -6}; fi
    else
      printf '\030\e\\\e]133;D;%s;n=%s\a' "$__tp_tag" "$__tp_n"
    fi
    __tp_ran=0
    [[ $PWD == "$__tp_pwd" ]] || __tp_encode_pwd
    printf '\e]7;file://%s%s\a\e]1337;RemoteHost=%s@%s\a' "\${HOSTNAME-}" "$__tp_url" "\${USER-}" "\${HOSTNAME-}"
    return "$ec"
  }

  # The line that just ran, from bash's history, percent-encoded into __tp_lcmd: only when history
  # saved exactly it (numbered one past the last prompt's, nothing added or deleted since: not a
  # line history ignored, a repeated one, or with history off), read with builtins (no fork).
  __tp_line() {
    local line=
    __tp_lcmd=
    [[ -n $__tp_rec ]] && (( __tp_h == __tp_hp + 1 && HISTCMD == __tp_h )) || return 0
    # The newest entry (HISTCMD, one past it, is the same in PS0 and here: it is this line).
    { builtin fc -ln -1 >| "$__tp_rec.line"; } 2>/dev/null || return 0
    IFS= read -r -d '' line < "$__tp_rec.line"
    [[ $line == $'\t '?*$'\n' ]] || return 0
    line=\${line:2}
    __tp_encode "\${line%$'\n'}" 2048
    __tp_lcmd=$__tp_enc
  }

  # Last prompt hook: the next prompt's number into the marks, and the marks back when something
  # rewrote PS1, PS0 or PROMPT_COMMAND.
  __tp_postcmd() {
    local ec=$? old_c=$__tp_c
    __tp_hp=$HISTCMD
    __tp_n=$(( __tp_n + 1 ))
    __tp_marks
    __tp_wrap_ps1
    PS0=\${PS0-}
    [[ -z $old_c ]] || PS0=\${PS0//"$old_c"/}
    PS0=\${PS0//"$__tp_c"/}$__tp_c
    if (( __tp_arrays )) && [[ \${PROMPT_COMMAND@a} == *a* ]]; then
      [[ \${PROMPT_COMMAND[0]} == __tp_precmd && \${PROMPT_COMMAND[-1]} == __tp_postcmd ]] || __tp_hook
    else
      [[ $PROMPT_COMMAND == $'__tp_precmd\n'*$'\n__tp_postcmd' ]] || __tp_hook
    fi
    return "$ec"
  }

  # PWD percent-encoded, into __tp_url.
  __tp_encode_pwd() {
    __tp_pwd=$PWD
    __tp_encode "$PWD"
    __tp_url=$__tp_enc
  }

  # $1 percent-encoded (every byte outside A-Z a-z 0-9 / . _ ~ -) into __tp_enc; empty when it is
  # longer than $2 bytes (when given).
  __tp_encode() {
    local LC_ALL=C s=$1 out= c i
    __tp_enc=
    (( \${2:-0} && \${#s} > \${2:-0} )) && return 0
    if [[ $s == *[!A-Za-z0-9/._~-]* ]]; then
      for (( i = 0; i < \${#s}; i++ )); do
        c=\${s:i:1}
        case $c in
          [A-Za-z0-9/._~-]) out+=$c ;;
          *) printf -v c '%%%02X' "'$c"; out+=$c ;;
        esac
      done
      s=$out
    fi
    __tp_enc=$s
  }

  # PS1 without any TermPilot A/B marks (ours, or a parent shell's in an exported PS1), wrapped in ours.
  __tp_wrap_ps1() {
    local s=\${PS1-} head rest
    while [[ $s == *'\[\e]133;'[AB]';tp='* ]]; do
      head=\${s%%'\[\e]133;'[AB]';tp='*}
      rest=\${s:\${#head}}
      [[ $rest == *'\a\]'* ]] || break
      s=$head\${rest#*'\a\]'}
    done
    PS1=$__tp_a$s$__tp_b
    __tp_record "$s"
  }

  # The prompt about to be drawn, for a TermPilot started later: the token, its number and the
  # prompt as it will show (left out when expanding it would run a command), then the last command.
  # No fork.
  __tp_record() {
    [[ -n $__tp_rec ]] || return 0
    local shown=
    [[ $1 == *'$('* || $1 == *'\`'* ]] || shown=\${1@P}
    { printf 'tp2\0%s\0%s\0%s\0\0%s\0%s\0%s\0%s\0%s\0%s\0' "$__tp_token" "$__tp_n" "$shown" "$__tp_lseq" \
        "$__tp_lec" "$__tp_lt0" "$__tp_lt1" "$__tp_lcwd" "$__tp_lcmd" >| "$__tp_rec"; } 2>/dev/null
  }

  # PROMPT_COMMAND (a string, or an array on bash >= 5.1) with our hooks first and last.
  __tp_hook() {
    PROMPT_COMMAND=\${PROMPT_COMMAND-} # now set (for set -u); an array keeps its elements
    if (( __tp_arrays )) && [[ \${PROMPT_COMMAND@a} == *a* ]]; then
      local -a keep=()
      local c
      for c in "\${PROMPT_COMMAND[@]}"; do
        [[ $c == __tp_precmd || $c == __tp_postcmd ]] || keep+=("$c")
      done
      PROMPT_COMMAND=(__tp_precmd "\${keep[@]}" __tp_postcmd)
    else
      local c=\${PROMPT_COMMAND-}
      c=\${c//$'__tp_precmd\n'/}
      c=\${c//$'\n__tp_postcmd'/}
      PROMPT_COMMAND=$'__tp_precmd\n'$c$'\n__tp_postcmd'
    fi
  }

  __tp_hook
  __tp_encode_pwd
  __tp_postcmd
  if [[ -n $__tp_announce ]]; then
    command tmux set -p -a -t "$TMUX_PANE" @termpilot_tokens "$__tp_announce" >/dev/null 2>&1 || :
  fi
fi
`
