#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/packaging/completion.sh PREFIX — the installed bash completion of
# cclscope offers what packaging/cclscope.bash promises, for the installed
# program: commands, each command's options (and only its own), an option's
# listed values, any file after -o, folders and trace files as inputs.
set -euo pipefail
prefix=$1
fail() { echo "FAIL: $*"; exit 1; }
PATH=$prefix/bin:$PATH
source "$prefix/share/bash-completion/completions/cclscope"
complete -p cclscope | grep -q -- "-F _cclscope" || fail "not registered"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir run1
touch a.jsonl b.txt c.jsonl.zst d.jsonl.gz

# complete WORDS...: COMPREPLY for the last word, sorted, on one line.
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _cclscope
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() { # expected, words...
  local want=$1 got
  shift
  got=$(complete_words "$@")
  [ "$got" = "$want" ] || fail "[$*]: got '$got', want '$want'"
}

expect "check convert hang help load merge otf2 perfetto sql summary view" cclscope ""
expect "check" cclscope ch
expect "summary" cclscope -j 4 su
expect "perfetto" cclscope help pe
expect "--help --jobs --progress --quiet --version" cclscope --
expect "--max-findings" cclscope check --m
got=$(complete_words cclscope check --)
[[ " $got " == *" --no-notes "* ]] || fail "check --: $got"
[[ " $got " != *" --top "* ]] || fail "check -- offers summary's --top: $got"
expect "--max-ranks" cclscope --quiet hang --max
expect "end start" cclscope merge --order ""
expect "--clickhouse --cluster --create" cclscope load --c
expect "" cclscope load --clickhouse ""
expect "" cclscope summary --top ""
expect "a.jsonl b.txt c.jsonl.zst d.jsonl.gz run1" cclscope view -o ""
expect "a.jsonl c.jsonl.zst d.jsonl.gz run1" cclscope summary ""
expect "a.jsonl c.jsonl.zst d.jsonl.gz run1" cclscope check --json ""
echo "completion: OK"
