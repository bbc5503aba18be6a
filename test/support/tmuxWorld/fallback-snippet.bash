# Stand-in for `termpilot shell-integration bash` until the real snippet lands (plan contract:
# OSC 133 A/B/C/D with ;tp=<token>, the token announced once in @termpilot_tokens, OSC 7).
if [[ -n $TMUX && -z $__tpf_installed ]]; then
  __tpf_installed=1
  __tpf_token=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
  command tmux set -p -a -t "$TMUX_PANE" @termpilot_tokens " $__tpf_token"
  __tpf_ran=0
  __tpf_precmd() {
    local ec=$?
    if ((__tpf_ran)); then printf '\033]133;D;%s;tp=%s\007' "$ec" "$__tpf_token"; else printf '\033]133;D;tp=%s\007' "$__tpf_token"; fi
    __tpf_ran=0
    printf '\033]7;file://%s%s\007' "$HOSTNAME" "$PWD"
    return $ec
  }
  PROMPT_COMMAND="__tpf_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
  PS1='\[\e]133;A;tp='"$__tpf_token"'\a\]'"$PS1"'\[\e]133;B;tp='"$__tpf_token"'\a\]'
  PS0='${__tpf_dummy[(__tpf_ran=1)]}\e]133;C;tp='"$__tpf_token"'\a'"$PS0"
fi
