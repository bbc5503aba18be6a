# rcfile of every fake-iTerm2 session: a fixed, clean prompt and no history file. Sessions created
# with shell integration set TP_FAKE_INTEGRATION to the snippet's path.
PS1='tp:\W$ '
PS2='> '
unset PROMPT_COMMAND
HISTFILE=/dev/null
if [[ -n $TP_FAKE_INTEGRATION ]]; then
  source "$TP_FAKE_INTEGRATION"
fi
