# SPDX-License-Identifier: Apache-2.0
# packaging/cclscope.bash — bash completion for cclscope(1), installed as
# share/bash-completion/completions/cclscope (packaging/README.md).
#
# The commands and each command's options are read from the program's own
# `--help` texts when TAB is pressed, so they never drift from the program:
#   cclscope <TAB>              the commands (and, after -, the global options)
#   cclscope check --<TAB>      that command's options
#   cclscope merge --order <TAB>  the values an option lists (start end)
#   cclscope view -o <TAB>      any file (an option whose value is a FILE,
#                               DIR or ARCHIVE); nothing for a number
#   cclscope summary <TAB>      folders and trace files (*.jsonl, *.jsonl.zst,
#                               *.jsonl.gz)
# Plain bash: needs neither the bash-completion package nor extglob.

# The "commands:" list of `cclscope --help`, one name a line.
_cclscope_commands() {
  "$1" --help 2>/dev/null | awk '
    /^commands:/ { on = 1; next }
    on && NF == 0 { exit }
    on { print $1 }'
}

# "OPTION VALUE" lines (VALUE "-" when the option takes none) from the
# option rows of a help text: "  -o, --output FILE  text", "  --json  text".
# A value is an upper-case word (N, FILE, FILE|DIR) or a list (start|end).
_cclscope_option_table() {
  awk '
    /^  +-/ {
      n = 0
      for (i = 1; i <= NF; i++) {
        w = $i
        if (w ~ /^--?[A-Za-z][A-Za-z0-9-]*,?$/) {
          sub(/,$/, "", w); names[++n] = w; continue
        }
        value = (w ~ /^[A-Z][A-Z|]*$/ || w ~ /^[a-z]+(\|[a-z]+)+$/) ? w : "-"
        break
      }
      if (i > NF) value = "-"
      for (k = 1; k <= n; k++) print names[k], value
    }'
}

_cclscope() {
  local prog=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
  local prev=""
  [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()

  # The command: the first word after the global options (-j takes a value).
  local i command="" word
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    case $word in
    -j | --jobs) i=$((i + 1)) ;;
    -*) ;;
    *)
      command=$word
      break
      ;;
    esac
  done

  local global_table
  global_table=$("$prog" --help 2>/dev/null | _cclscope_option_table)
  global_table+=$'\n--version -'

  if [ -z "$command" ] || [ "$command" = help ]; then
    case $prev in
    -j | --jobs) return 0 ;;
    esac
    if [ -z "$command" ] && [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "$(cut -d' ' -f1 <<<"$global_table")" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$(_cclscope_commands "$prog")" -- "$cur"))
    fi
    return 0
  fi

  local table
  table=$("$prog" "$command" --help 2>/dev/null | _cclscope_option_table)
  table+=$'\n'$global_table

  # The value of an option.
  local value
  value=$(awk -v o="$prev" '$1 == o { print $2; exit }' <<<"$table")
  case $value in
  "" | -) ;;
  *[a-z]*)
    COMPREPLY=($(compgen -W "${value//|/ }" -- "$cur"))
    return 0
    ;;
  *FILE* | *DIR* | *ARCHIVE*)
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
    return 0
    ;;
  *) return 0 ;;
  esac

  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(cut -d' ' -f1 <<<"$table" | sort -u)" -- "$cur"))
    return 0
  fi

  # Inputs: folders and trace files.
  compopt -o filenames 2>/dev/null
  local f
  while IFS= read -r f; do
    if [ -d "$f" ]; then
      COMPREPLY+=("$f")
    else
      case $f in
      *.jsonl | *.jsonl.zst | *.jsonl.gz) COMPREPLY+=("$f") ;;
      esac
    fi
  done < <(compgen -f -- "$cur")
  return 0
}

complete -F _cclscope cclscope
