# Minimal shell integration for TermPilot's tmux tests, following the mark contract of the tmux
# plan exactly (the product snippet lives elsewhere): a per-shell token announced once in the
# pane option @termpilot_tokens, `;tp=<token>` on every OSC 133 mark, C from PS0, D (with the exit
# status when something ran) and OSC 7 from PROMPT_COMMAND, and A/B around PS1.
if [[ -n $TMUX && -z $__tpt_installed ]]; then
  __tpt_installed=1
  __tpt_tok=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
  command tmux set -p -a -t "$TMUX_PANE" @termpilot_tokens " $__tpt_tok"
  __tpt_ran=0
  __tpt_precmd() {
    local ec=$?
    if (( __tpt_ran )); then
      printf '\033]133;D;%s;tp=%s\007' "$ec" "$__tpt_tok"
    else
      printf '\033]133;D;tp=%s\007' "$__tpt_tok"
    fi
    __tpt_ran=0
    printf '\033]7;file://%s%s\007' "$HOSTNAME" "$PWD"
    return $ec
  }
  PROMPT_COMMAND="__tpt_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
  PS1='\[\e]133;A;tp='"$__tpt_tok"'\a\]'"$PS1"'\[\e]133;B;tp='"$__tpt_tok"'\a\]'
  PS0='${__tpt_dummy[(__tpt_ran=1)]}\e]133;C;tp='"$__tpt_tok"'\a'"$PS0"
fi
