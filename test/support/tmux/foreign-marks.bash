# Another terminal's shell integration, as VS Code, kitty or WezTerm emit it: standard FinalTerm
# OSC 133 marks with extra `;k=v` parameters and no TermPilot token (nothing announced to tmux).
if [[ -n $TMUX && -z $__fm_installed ]]; then
  __fm_installed=1
  __fm_ran=0
  __fm_precmd() {
    local ec=$?
    if (( __fm_ran )); then printf '\033]133;D;%s;aid=%s\007' "$ec" "$$"; else printf '\033]133;D;aid=%s\007' "$$"; fi
    __fm_ran=0
    printf '\033]7;file://%s%s\033\\' "$HOSTNAME" "$PWD"
    return $ec
  }
  PROMPT_COMMAND="__fm_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
  PS1='\[\e]133;A;cl=m;aid='"$$"'\a\]'"$PS1"'\[\e]133;B\e\\\]'
  PS0='${__fm_dummy[(__fm_ran=1)]}\e]133;C;cmdline_url=x\a'"$PS0"
fi
