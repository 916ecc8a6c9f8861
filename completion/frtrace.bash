# bash completion for frtrace(1): commands, each command's options and their values, dump
# directories and files. Installed by `make install` into
# $(PREFIX)/share/bash-completion/completions/frtrace; or source it from ~/.bashrc.
# The option lists are the ones `frtrace help COMMAND` prints (tests/t0630 checks they agree).

_frtrace_options() {
    local shared="--dir --prefix --selected-ranks --pg-filters --transform-ft --group-world-size --jobs --help"
    case $1 in
    stats) echo "$shared --format --output --width --straggler-floor-ms" ;;
    timeline) echo "$shared --format --output --from-ms --to-ms --max-ranks" ;;
    stacks) echo "$shared --by-rank" ;;
    show) echo "--pretty --help" ;;
    help) echo "" ;;
    *) echo "$shared --output --format --just-print-entries --verbose --mismatch-cap --width --color \
--allow-incomplete-ranks --print-stack-trace --all-collectives --all-calls --hosts --straggler-floor-ms --version" ;;
    esac
}

_frtrace() {
    local cur prev cmd="" w i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case $w in
        stats | timeline | show | stacks | help)
            cmd=$w
            break
            ;;
        esac
    done
    case $prev in
    -f | --format)
        case $cmd in
        stats) COMPREPLY=($(compgen -W "text markdown jira json" -- "$cur")) ;;
        timeline) COMPREPLY=($(compgen -W "json svg" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "text markdown jira json" -- "$cur")) ;;
        esac
        return
        ;;
    --color | --colour)
        COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
        return
        ;;
    -o | --output | --hosts)
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    -d | --dir)
        COMPREPLY=($(compgen -d -- "$cur"))
        return
        ;;
    -p | --prefix | -J | --jobs | --width | --mismatch-cap | --group-world-size | \
        --straggler-floor-ms | --from-ms | --to-ms | --max-ranks | --selected-ranks)
        return # a number or a name: nothing to offer
        ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_frtrace_options "$cmd")" -- "$cur"))
        return
    fi
    case $cmd in
    "") COMPREPLY=($(compgen -W "stats timeline show stacks help" -- "$cur") $(compgen -d -- "$cur")) ;;
    help) COMPREPLY=($(compgen -W "stats timeline show stacks" -- "$cur")) ;;
    show) COMPREPLY=($(compgen -f -- "$cur")) ;;
    *) COMPREPLY=($(compgen -d -- "$cur")) ;;
    esac
}

complete -o filenames -F _frtrace frtrace
