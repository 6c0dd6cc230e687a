#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/packaging/man.sh PREFIX — the installed man pages (generated from
# the --help texts by packaging/gen_man.sh, installed gzip-compressed as
# Debian wants them) are troff that groff and man
# render without a warning, one page per command the overview lists, each
# with its usage as SYNOPSIS.
set -euo pipefail
prefix=$1
fail() { echo "FAIL: $*"; exit 1; }
man1=$prefix/share/man/man1

commands=$("$prefix/bin/cclscope" --help |
  awk '/^commands:/ { on = 1; next } on && NF == 0 { exit } on && $1 != "help" { print $1 }')
[ "$(wc -w <<<"$commands")" -ge 8 ] || fail "commands: $commands"
pages=("$man1/cclscope.1.gz" "$man1/ncclemu.1.gz")
for c in $commands; do pages+=("$man1/cclscope-$c.1.gz"); done
[ "$(ls "$man1" | wc -l)" -eq ${#pages[@]} ] || fail "pages: $(ls "$man1")"

# Every page: groff with all warnings (-ww), input read as man reads it
# (-k: preconv, for the UTF-8 text), NAME, SYNOPSIS and DESCRIPTION there.
for page in "${pages[@]}"; do
  [ -f "$page" ] || fail "$page missing"
  warnings=$(zcat "$page" | groff -k -man -Tutf8 -ww -z 2>&1)
  [ -z "$warnings" ] || fail "groff on $page: $warnings"
  text=$(zcat "$page" | groff -k -man -Tutf8 -P-cbou 2>/dev/null)
  for section in NAME SYNOPSIS DESCRIPTION; do
    grep -q "^$section" <<<"$text" || fail "$page has no $section"
  done
done
# man itself (man-db, as a user runs it): no warning; the text is the
# program's, options and non-ASCII text come through.
render() { # page
  LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -l "$1" 2>"$1.err"
  [ ! -s "$1.err" ] || fail "man on $1: $(cat "$1.err")"
  rm -f "$1.err"
}
text=$(render "$man1/cclscope-merge.1.gz")
grep -q "cclscope merge \[--order start|end\] \[--memory-mb N\] -o FILE" <<<"$text" ||
  fail "merge SYNOPSIS: $text"
grep -q -- "--memory-mb N       memory for sorting" <<<"$text" || fail "merge options"
text=$(render "$man1/cclscope-check.1.gz")
grep -q "W notes — OK" <<<"$text" || fail "check: the em dash is lost"
text=$(render "$man1/ncclemu.1.gz")
grep -q "ncclemu - a host-only NCCL stand-in" <<<"$text" || fail "ncclemu NAME"
text=$(render "$man1/cclscope.1.gz")
grep -q "cclscope-summary(1)" <<<"$text" || fail "cclscope(1) SEE ALSO"
echo "man: ${#pages[@]} pages OK"
