#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/summary_width.sh — `summary`'s text fits the width of where it
# goes (docs/cli.md, summary, "Width"), and --top takes any number:
#  - piped, without COLUMNS: no line over 100 columns (it used to print
#    lines of 190 and more); with COLUMNS=70: none over 70; on a terminal
#    (script(1) gives it a pty of 64 columns): none over 64;
#  - nothing is lost: every word of the --wide text (one line per row and
#    sentence, as before) is in the fitted text, and --wide has lines
#    over 100; --json is the same whatever the width;
#  - --top 11, --top 1000 and --top all are taken (it stopped at 10):
#    `all` prints every row and no "… N more" line.
# usage: summary_width.sh CCLSCOPE FIXTURES
set -euo pipefail
cs=$1 fix=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-width-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export LC_ALL=C.UTF-8 # ${#line} counts characters (→, ², …), not bytes
unset COLUMNS
cd "$work"

widest() { # FILE: the most columns of a line
  local line most=0
  while IFS= read -r line; do
    [ ${#line} -gt $most ] && most=${#line}
  done <"$1"
  echo "$most"
}
words() { tr -s ' \t' '\n\n' <"$1" | sed '/^$/d' | sort -u; }

for name in inherited_many verdict_stall real_nccl_graph_all pxn_ok timing; do
  in=$fix/$name
  "$cs" -q summary "$in" >fit.txt
  [ "$(widest fit.txt)" -le 100 ] || { grep -n '.\{101\}' fit.txt | head -3; fail "$name: lines over 100 columns in a pipe"; }
  COLUMNS=70 "$cs" -q summary "$in" >fit70.txt
  [ "$(widest fit70.txt)" -le 70 ] || { grep -n '.\{71\}' fit70.txt | head -3; fail "$name: lines over COLUMNS=70"; }
  "$cs" -q summary --wide "$in" >wide.txt
  [ "$(widest wide.txt)" -gt 100 ] || fail "$name: --wide is not wide (the fixture no longer tests fitting)"
  for fitted in fit.txt fit70.txt; do
    words wide.txt >w.wide
    words "$fitted" >w.fit
    cmp -s w.wide w.fit || { diff w.wide w.fit | head; fail "$name: $fitted lost or changed words of the wide text"; }
  done
  "$cs" -q summary --json "$in" >a.json
  COLUMNS=50 "$cs" -q summary --json "$in" >b.json
  cmp -s a.json b.json || fail "$name: --json depends on the width"
done

# On a terminal of 64 columns (COLUMNS unset: the terminal's width).
script -qec "stty cols 64 rows 50; '$cs' -q summary '$fix/inherited_many'" /dev/null | tr -d '\r' >tty.txt
grep -q "^Stragglers" tty.txt || { cat tty.txt; fail "no summary on the terminal"; }
[ "$(widest tty.txt)" -le 64 ] || { grep -n '.\{65\}' tty.txt | head -3; fail "lines over the terminal's 64 columns"; }

# --top: any number, or all.
in=$fix/inherited_many
"$cs" -q summary --top 1 "$in" >top1.txt
grep -q "^  … [0-9]* more GPUs (--top N shows more)$" top1.txt || { cat top1.txt; fail "--top 1 hides no GPU"; }
for n in 11 1000 all; do
  "$cs" -q summary --wide --top $n "$in" >top.txt || fail "--top $n refused"
  if grep -q "more GPUs\|more (comm, rank) rows" top.txt; then fail "--top $n still hides rows"; fi
done
gpus=$(grep -c '^  g[0-9]* node' top.txt || true)
[ "$gpus" -eq 4 ] || { cat top.txt; fail "--top all shows $gpus GPU rows, not 4"; }
grep -q "^  Worst instances (largest arrival spread; the 10 largest are kept):$" top.txt ||
  fail "--top all does not say that 10 worst instances are kept"
if "$cs" summary --top 0 "$in" >out.txt 2>&1; then fail "--top 0 accepted"; fi
grep -q "^cclscope summary: --top needs a number of rows (1 or more) or 'all', not '0'$" out.txt ||
  { cat out.txt; fail "no message for --top 0"; }
echo "PASS"
