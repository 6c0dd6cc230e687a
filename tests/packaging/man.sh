#!/usr/bin/env bash
# tests/packaging/man.sh PREFIX — the installed man pages (generated from
# the --help texts by packaging/gen_man.sh) are troff that groff and man
# render without a warning, one page per command the overview lists, each
# with its usage as SYNOPSIS.
set -euo pipefail
prefix=$1
fail() { echo "FAIL: $*"; exit 1; }
man1=$prefix/share/man/man1

commands=$("$prefix/bin/cclscope" --help |
  awk '/^commands:/ { on = 1; next } on && NF == 0 { exit } on && $1 != "help" { print $1 }')
[ "$(wc -w <<<"$commands")" -ge 8 ] || fail "commands: $commands"
pages=("$man1/cclscope.1" "$man1/ncclemu.1")
for c in $commands; do pages+=("$man1/cclscope-$c.1"); done
[ "$(ls "$man1" | wc -l)" -eq ${#pages[@]} ] || fail "pages: $(ls "$man1")"

for page in "${pages[@]}"; do
  [ -f "$page" ] || fail "$page missing"
  warnings=$(groff -k -man -Tutf8 -ww -z "$page" 2>&1)
  [ -z "$warnings" ] || fail "groff on $page: $warnings"
  text=$(LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -l "$page" 2>"$page.err")
  [ ! -s "$page.err" ] || fail "man on $page: $(cat "$page.err")"
  rm -f "$page.err"
  for section in NAME SYNOPSIS DESCRIPTION; do
    grep -q "^$section" <<<"$text" || fail "$page has no $section"
  done
done
# The text is the program's: options and non-ASCII text come through.
text=$(LC_ALL=C.UTF-8 MANWIDTH=100 man -l "$man1/cclscope-merge.1")
grep -q "cclscope merge \[--order start|end\] \[--memory-mb N\] -o FILE" <<<"$text" ||
  fail "merge SYNOPSIS: $text"
grep -q -- "--memory-mb N       memory for sorting" <<<"$text" || fail "merge options"
text=$(LC_ALL=C.UTF-8 MANWIDTH=100 man -l "$man1/cclscope-check.1")
grep -q "W notes — OK" <<<"$text" || fail "check: the em dash is lost"
text=$(LC_ALL=C.UTF-8 MANWIDTH=100 man -l "$man1/ncclemu.1")
grep -q "ncclemu - a host-only NCCL stand-in" <<<"$text" || fail "ncclemu NAME"
echo "man: ${#pages[@]} pages OK"
