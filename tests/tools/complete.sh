#!/bin/bash
# complete.sh WORD... — what completion/frtrace.bash offers for the command line "frtrace
# WORD...", the last word being the one completed (give "" to complete a new word): one
# candidate per line, sorted. For tests (t0630): bash only, as the completion is bash's.
. "$(dirname "$0")/../../completion/frtrace.bash"
COMP_WORDS=(frtrace "$@")
COMP_CWORD=$#
COMPREPLY=()
_frtrace
printf '%s\n' "${COMPREPLY[@]}" | sort
