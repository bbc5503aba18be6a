/**
 * ZshSnippet — `termpilot shell-integration zsh`: OSC 133 A/B/C/D and OSC 7 for zsh 5.x inside tmux,
 * and in shells started under a TermPilot-watched pane without tmux (`$LC_TERMPILOT`, as in bash),
 * every 133 mark carrying `;tp=<token>[;sh=<shell id>];n=<prompt number>` (specs/security.md). No fork per
 * prompt: D and OSC 7 from the first precmd hook, C from the last preexec hook, A/B in PS1 (and B again
 * at the end of a non-empty RPROMPT), renumbered by the last precmd hook. zsh draws its PROMPT_SP
 * end-of-line mark (`%` or `#`, spaces, CR) before any precmd hook, so inside the output before D: the
 * snippet turns the option off and draws the same bytes itself right after D. C carries the line the
 * command runs (preexec's `$1`, percent-encoded, `cmd=`). The last precmd hook also records the
 * prompt about to be drawn, and the last command that ran (prompt number, status, times from
 * zsh/datetime's $EPOCHREALTIME, directory, line), for a TermPilot started later (EarlierPrompt.ts).
 */
import { script } from "./ScriptText.js"

export const zshSnippet = script`# TermPilot shell integration for zsh 5.x. Source it at the END of ~/.zshrc (after your prompt or prompt
# framework). It acts only inside tmux ($TMUX set), or in a shell started from a TermPilot-watched tmux
# pane ($LC_TERMPILOT set: ssh forwards LC_* by default); elsewhere it does nothing. Install it
# unchanged on servers too.
# Marks: OSC 133 A (prompt start), B (prompt end), C (command starts; ;cmd=<its line, percent-encoded,
# empty past 2 KiB>), D[;exit] (command done, no exit when nothing ran), each with ;tp=<token>;n=<prompt
# number>, and OSC 7 (cwd, percent-encoded). The
# token is random per shell and announced once, with the shell's pid, to tmux in the pane option
# @termpilot_tokens; prompt numbers only go up. Nothing forks per prompt. A shell in tmux also
# announces a second secret and exports it as LC_TERMPILOT=<pane>:<secret> for the shells started
# under it that cannot reach tmux; such a shell marks with a random shell id and, as its token, the
# sha256 of "<secret>:<shell id>", so its marks never show the secret. Before each prompt a shell in
# tmux records its token, the prompt's number and the prompts as they will show, and the last
# command's prompt number, exit status, start and end times, directory and line, in
# \${XDG_RUNTIME_DIR:-\${TMPDIR:-/tmp}}/termpilot-$UID/<its pid>, so a TermPilot started later can
# prove the prompt idle without a keypress and list that command.
if [[ ( -n \${TMUX-} || \${LC_TERMPILOT-} == %[0-9]*:[0-9a-f]* ) && -z \${__tp_token-} ]]; then
  # 128 random bits as 32 hex digits into the variable named $1.
  __tp_hex() {
    emulate -L zsh
    local raw h
    raw=$(command od -An -N16 -tx1 /dev/urandom 2>/dev/null)
    h=\${raw//[^0-9a-f]/}
    if (( \${#h} < 32 )); then
      h=\${(l:4::0:)$(( [##16] RANDOM ))}\${(l:4::0:)$(( [##16] RANDOM ))}\${(l:4::0:)$(( [##16] RANDOM ))}\${(l:4::0:)$(( [##16] RANDOM ))}
      h+=\${(l:4::0:)$(( [##16] RANDOM ))}\${(l:4::0:)$(( [##16] RANDOM ))}\${(l:4::0:)$(( [##16] RANDOM ))}\${(l:4::0:)$(( [##16] RANDOM ))}
      h=\${(L)h}
    fi
    typeset -g "$1=$h"
  }
  typeset -g __tp_token= __tp_tag= __tp_announce= __tp_rec=
  if [[ -n \${TMUX-} && -n \${TMUX_PANE-} ]]; then
    __tp_hex __tp_token
    __tp_tag="tp=$__tp_token"
    __tp_announce=" $__tp_token:$$"
    # Where each prompt is recorded for a TermPilot started later: a directory of ours only.
    __tp_rec=\${XDG_RUNTIME_DIR:-\${TMPDIR:-/tmp}}/termpilot-$UID
    [[ -e $__tp_rec || -L $__tp_rec ]] || command mkdir -m 700 -- $__tp_rec 2>/dev/null
    if [[ -d $__tp_rec && ! -L $__tp_rec && -O $__tp_rec ]]; then __tp_rec+=/$$; else __tp_rec=; fi
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
    __tp_sh=\${__tp_sh[1,16]}
    __tp_token=$(print -rn -- "\${LC_TERMPILOT#*:}:$__tp_sh" | { command sha256sum || command shasum -a 256 } 2>/dev/null)
    __tp_token=\${__tp_token%% *}
    __tp_tag="tp=\${__tp_token:-0000000000000000};sh=$__tp_sh"
  fi
  typeset -g __tp_ran=0 __tp_pwd= __tp_url= __tp_enc= __tp_n=0 __tp_a= __tp_b= __tp_sp=0 __tp_t0= __tp_cmd=
  # The last command that ran: its prompt number, status, start and end, directory and line (both
  # percent-encoded), for the record. Times from zsh/datetime (a module, loaded once: no fork).
  typeset -g __tp_lseq= __tp_lec= __tp_lt0= __tp_lt1= __tp_lcwd= __tp_lcmd=
  zmodload -F zsh/datetime p:EPOCHREALTIME 2>/dev/null

  # First precmd hook: D with the status of what ran (zsh gives every hook the command's $?), then
  # zsh's PROMPT_SP (taken over from zsh, see __tp_prompt), then OSC 7.
  __tp_precmd() {
    local ec=$? cr=0 now=\${EPOCHREALTIME-}
    [[ -o prompt_cr ]] && cr=1
    emulate -L zsh
    if (( __tp_ran )); then
      printf '\030\e\\\e]133;D;%s;%s;n=%s\a' $ec $__tp_tag $__tp_n
      __tp_lseq=$__tp_n __tp_lec=$ec __tp_lt0=$__tp_t0 __tp_lt1=$now __tp_lcwd=$__tp_url __tp_lcmd=$__tp_cmd
    else
      printf '\030\e\\\e]133;D;%s;n=%s\a' $__tp_tag $__tp_n
    fi
    (( __tp_sp && cr )) && __tp_prompt_sp
    __tp_ran=0
    [[ $PWD == $__tp_pwd ]] || __tp_encode_pwd
    printf '\e]7;file://%s%s\a\e]1337;RemoteHost=%s@%s\a' \${HOST-} $__tp_url \${USER-} \${HOST-}
    return ec
  }

  # Last preexec hook: C with the line as typed (else as it runs), right before the command's own output.
  __tp_preexec() {
    __tp_ran=1 __tp_t0=\${EPOCHREALTIME-}
    __tp_encode "\${1:-$3}" 2048
    __tp_cmd=$__tp_enc
    printf '\e]133;C;%s;n=%s;cmd=%s\a' $__tp_tag $__tp_n "$__tp_cmd"
  }

  # zsh's PROMPT_SP as zsh draws it (a terminal with automatic margins, as tmux's are): the end-of-line
  # mark, spaces to the last column, CR, spaces over the mark, CR. After output without a final newline
  # the spaces wrap, so the prompt starts on a line of its own and the mark stays; otherwise it is erased.
  __tp_prompt_sp() {
    emulate -L zsh
    setopt extended_glob
    local mark=\${(%)\${PROMPT_EOL_MARK-%B%S%#%s%b}}
    local plain=\${mark//$'\e['[0-?]#[ -\/]#[@-~]/}
    local w=\${(m)#plain}
    printf '%s%*s\r%*s\r' "$mark" $(( COLUMNS > w ? COLUMNS - w : 0 )) '' $w ''
  }

  # Last precmd hook: takes PROMPT_SP over from zsh (so it comes after D, not inside the output; here,
  # outside any emulate -L, which would restore the option on return), then __tp_check.
  __tp_prompt() {
    local ec=$?
    if [[ -o prompt_sp ]]; then
      __tp_sp=1
      unsetopt prompt_sp
    fi
    __tp_check
    __tp_record
    return ec
  }

  # The next prompt's number into the marks, the marks back when something rewrote the prompts, and
  # the hooks' order (ours first and last) for the next prompt.
  __tp_check() {
    emulate -L zsh
    (( __tp_n += 1 ))
    __tp_a=$'%{\e]133;A;'$__tp_tag';n='$__tp_n$'\a%}' __tp_b=$'%{\e]133;B;'$__tp_tag';n='$__tp_n$'\a%}'
    [[ $PS1 == \${__tp_a}* && $PS1 == *\${__tp_b} ]] || __tp_rewrap PS1
    # A right prompt is drawn after PS1: B goes at its end too, so nothing printable follows the last B.
    [[ -z $RPROMPT || $RPROMPT == *\${__tp_b} ]] || __tp_rewrap RPROMPT
    [[ \${precmd_functions[1]} == __tp_precmd && \${precmd_functions[-1]} == __tp_prompt &&
       \${preexec_functions[-1]} == __tp_preexec ]] || __tp_hook
  }

  # The prompt about to be drawn, for a TermPilot started later: the token, its number and both
  # prompts as they will show (left out when expanding them would run a command), then the last
  # command. No fork. Called
  # before any emulate -L, so the person's prompt options apply.
  __tp_record() {
    [[ -n $__tp_rec ]] || return 0
    local p=\${PS1#"$__tp_a"} r=\${RPROMPT-} shown= rshown=
    p=\${p%"$__tp_b"} r=\${r%"$__tp_b"}
    if [[ ! -o prompt_subst ]]; then
      shown=\${(%)p} rshown=\${(%)r}
    elif [[ $p$r != *'$('* && $p$r != *'\`'* ]]; then
      shown=\${(%)\${(e)p}} rshown=\${(%)\${(e)r}}
    fi
    { printf 'tp2\0%s\0%s\0%s\0%s\0%s\0%s\0%s\0%s\0%s\0%s\0' $__tp_token $__tp_n "$shown" "$rshown" \
        "$__tp_lseq" "$__tp_lec" "$__tp_lt0" "$__tp_lt1" "$__tp_lcwd" "$__tp_lcmd" >| $__tp_rec } 2>/dev/null
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
    emulate -L zsh
    setopt no_multibyte
    local s=$1 out= c
    if (( \${2:-0} && \${#s} > \${2:-0} )); then
      __tp_enc=
      return
    fi
    if [[ $s == *[^A-Za-z0-9/._~-]* ]]; then
      for c in \${(s::)s}; do
        case $c in
          [A-Za-z0-9/._~-]) out+=$c ;;
          *) out+=%\${(l:2::0:)$(( [##16] #c ))} ;;
        esac
      done
      s=$out
    fi
    __tp_enc=$s
  }

  # $1 (PS1 or RPROMPT) without any TermPilot A/B mark (ours, or a parent shell's in an exported PS1),
  # then ended with B (and PS1 started with A).
  __tp_rewrap() {
    emulate -L zsh
    setopt extended_glob
    local s=\${(P)1}
    s=\${s//$'%{\e]133;'[AB]';tp='[0-9a-f]##(';sh='[0-9a-f]##|)(';n='[0-9]##|)$'\a%}'/}
    [[ $1 == PS1 ]] && s=$__tp_a$s
    typeset -g "$1=$s$__tp_b"
  }

  # Our hooks first (D) and last (C, and the prompt check), each once.
  __tp_hook() {
    emulate -L zsh
    precmd_functions=(__tp_precmd \${precmd_functions:#__tp_(precmd|prompt)} __tp_prompt)
    preexec_functions=(\${preexec_functions:#__tp_preexec} __tp_preexec)
  }

  typeset -ga precmd_functions preexec_functions
  __tp_hook
  __tp_encode_pwd
  __tp_prompt
  if [[ -n $__tp_announce ]]; then
    command tmux set -p -a -t "$TMUX_PANE" @termpilot_tokens "$__tp_announce" >/dev/null 2>&1 || :
  fi
fi
`
