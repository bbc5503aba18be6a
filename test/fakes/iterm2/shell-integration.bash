# Fake-iTerm2 shell integration for bash >= 4.4 (adapted from docs/reference/tmux.md §1, without the
# $TMUX guard). OSC 133 A/B/C/D (D carries the exit status only when a command ran), the cwd as
# OSC 7 file://host/path and iTerm2's OSC 1337 CurrentDir= / RemoteHost=user@host.
if [[ -z $__tp_installed ]]; then
  __tp_installed=1
  __tp_ran=0
  __tp_precmd() {
    local ec=$?
    if (( __tp_ran )); then printf '\033]133;D;%s\007' "$ec"; else printf '\033]133;D\007'; fi
    __tp_ran=0
    printf '\033]7;file://%s%s\007' "${HOSTNAME}" "${PWD}"
    printf '\033]1337;RemoteHost=%s@%s\007\033]1337;CurrentDir=%s\007' "${USER}" "${HOSTNAME}" "${PWD}"
    return $ec
  }
  PROMPT_COMMAND="__tp_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
  PS1='\[\e]133;A\a\]'"$PS1"'\[\e]133;B\a\]'
  # The arithmetic in the array subscript runs in the current shell, so it sets the flag without a fork.
  PS0='${__tp_dummy[(__tp_ran=1)]}\e]133;C\a'"${PS0}"
fi
