# rc file of the test shells: a plain prompt, every line the shell reads logged to
# $TPT_DIR/lines.<pane> (proof of what the shell really executed), then the marks when asked.
PS1='$ '
HISTFILE=/dev/null
HISTCONTROL=
HISTIGNORE=
HISTSIZE=1000
set +H
__tpt_last_hist=
__tpt_log() {
  local line re='^ *([0-9]+)  (.*)$'
  line=$(HISTTIMEFORMAT= builtin history 1)
  if [[ $line =~ $re && ${BASH_REMATCH[1]} != "$__tpt_last_hist" ]]; then
    __tpt_last_hist=${BASH_REMATCH[1]}
    printf '%s\n' "${BASH_REMATCH[2]}" >> "$TPT_DIR/lines.$TMUX_PANE"
  fi
}
PROMPT_COMMAND=__tpt_log
if [[ $TPT_MARKS == 1 ]]; then source "$TPT_MARKS_FILE"; fi
